#!/usr/bin/env python3
# Measures issue 29 items 4-7 against `omgdb mcp` over stdio: each attack's wall time, the
# server's peak RSS above idle while it ran (VmHWM after resetting it through
# /proc/PID/clear_refs, minus VmRSS before), and the slowest `find` of another collection sent
# every 50 ms meanwhile. The server runs with --call-timeout 5000 (the collection and search
# index of item 7 are made by a server without a deadline first).
#
#   python3 bench/issue29_attacks.py build/release/omgdb /tmp/issue29 [documents, default 100000]
#
# Figures of 8 December 2026 are in docs/testing.md ("Attacks of issue 29, items 4-7").
import json, os, subprocess, sys, threading, time, random, shutil
binary, workdir = sys.argv[1], sys.argv[2]
documents = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
shutil.rmtree(workdir, ignore_errors=True); os.makedirs(workdir)
store = os.path.join(workdir, "store")
subprocess.run([binary, "create", store], check=True, stdout=subprocess.DEVNULL)
env = dict(os.environ, OMGDB_LOG_LEVEL="error")
replies, lock, cv = {}, threading.Lock(), threading.Condition(threading.Lock())
p = None
def reader(p):
    for line in p.stdout:
        m = json.loads(line)
        if "id" in m:
            with cv:
                replies[m["id"]] = (time.monotonic(), m); cv.notify_all()
nid = [0]
def start(timeout_ms):
    global p
    if p is not None:
        p.stdin.close(); p.wait(60)
    p = subprocess.Popen([binary, "mcp", "--call-timeout", str(timeout_ms), "--workers", "4"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=env, cwd=workdir)
    threading.Thread(target=reader, args=(p,), daemon=True).start()
    i, _ = send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}}); wait(i)
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'); p.stdin.flush()
def send(method, params):
    with lock:
        nid[0] += 1; i = nid[0]
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode()); p.stdin.flush()
    return i, time.monotonic()
def wait(i, timeout=600):
    with cv:
        cv.wait_for(lambda: i in replies, timeout)
        return replies.pop(i)
def call(name, args, timeout=600):
    i, t0 = send("tools/call", {"name": name, "arguments": dict(args, path=store)})
    t1, m = wait(i, timeout)
    return t1 - t0, m
def text(m):
    r = m.get("result", {}); c = r.get("content", [{}])
    return ("ERROR " if r.get("isError") else "") + (c[0].get("text", "") if c else json.dumps(m))[:160]
def status(key):
    for line in open(f"/proc/{p.pid}/status"):
        if line.startswith(key): return int(line.split()[1]) / 1024
def reset_peak():
    with open(f"/proc/{p.pid}/clear_refs", "w") as f: f.write("5")
start(5000)
print(call("insert", {"collection": "probe", "document": {"_id": 1, "x": 1}})[1].get("result", {}).get("isError"))
def md(id_, t, extra=None):
    d = {"_id": id_, "text": t, "_markdown": {"version": 1}, "_sections": []}
    d.update(extra or {})
    return call("insert", {"collection": "notes", "document": d})
results = []
def attack(label, name, args):
    idle = status("VmRSS:"); reset_peak()
    stop = threading.Event(); finds = []
    def prober():
        while not stop.is_set():
            dt, _ = call("find", {"collection": "probe", "filter": {}})
            finds.append(dt * 1000); time.sleep(0.05)
    th = threading.Thread(target=prober); th.start()
    dt, m = call(name, args)
    stop.set(); th.join()
    peak = status("VmHWM:")
    results.append((label, dt * 1000, peak - idle, max(finds) if finds else 0.0, text(m)))
    print(f"{label}: {dt*1000:.0f} ms, peak +{peak-idle:.0f} MB over idle {idle:.0f} MB, find max {max(finds) if finds else 0:.0f} ms: {text(m)}", flush=True)

# item 4
md("n.md", "# A\nold\n## B\nkeep\n")
attack("4 set_section 60,000 x ![[]()", "markdown_set_section", {"collection": "notes", "id": "n.md", "sectionId": "a", "text": "![[]()" * 60000})
md("big.md", "# A\n" + "![[]()" * 60000 + "\n## B\nkeep\n")
attack("4 edit of a stored document holding 60,000 x ![[]()", "markdown_set_section", {"collection": "notes", "id": "big.md", "sectionId": "a/b", "text": "x\n"})
attack("4 later edit of that document", "markdown_set_section", {"collection": "notes", "id": "n.md", "sectionId": "a/b", "text": "x\n"})
keys = "".join(f"k{i}: {i}\n" for i in range(150000))
md("k.md", "---\n" + keys + "---\n# A\nbody\n")
attack("4 patch of a 150,000-key frontmatter", "markdown_patch_frontmatter", {"collection": "notes", "id": "k.md", "patch": {"x": 1}})
# item 5
lol = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
for c in "bcdefghi":
    prev = chr(ord(c) - 1); lol += f"{c}: &{c} [" + ",".join("*" + prev for _ in range(10)) + "]\n"
md("l.md", "---\n" + lol + "...\n# A\nbody\n")
attack("5 billion laughs, patch_frontmatter (... close)", "markdown_patch_frontmatter", {"collection": "notes", "id": "l.md", "patch": {"x": 1}})
md("p.md", "# A\nbody\n")
attack("5 billion laughs, set_section \"\" (... close)", "markdown_set_section", {"collection": "notes", "id": "p.md", "sectionId": "", "text": "---\n" + lol + "...\n"})
# item 6
long_text = "# Guide\nintro\n## Install\nRun the frobnicate installer.\n" + "".join("\n" + "x" * 900 + " words.\n" for _ in range(2000))
path = [f"level {i}" for i in range(50000)]
md("f.md", long_text, {"_sections": [{"id": "forged", "path": path, "headingStart": 0, "bodyStart": 0, "bodyEnd": len(long_text)}]})
attack("6 context_pack over a forged 50,000-entry _sections", "context_pack", {"collection": "notes", "field": "text", "query": "frobnicate installer", "budget": 2000})
# item 7: the collection and its index are made by a server without a call deadline
start(0)
rng = random.Random(7)
for b in range(documents // 5000):
    docs = [{"_id": b * 5000 + k, "body": " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(3)) for _ in range(40))} for k in range(5000)]
    call("insert_many", {"collection": "pages", "documents": docs})
print(text(call("define_search_index", {"definition": {"collection": "pages", "name": "t", "fields": ["body"]}})[1]))
print("first search (builds):", call("search", {"collection": "pages", "index": "t", "query": "abc", "timeoutMs": 60000})[0])
start(5000)
# warm up: open the store and the generation (its page check) before measuring
call("find", {"collection": "probe", "filter": {}})
print("warm-up search:", text(call("search", {"collection": "pages", "index": "t", "query": "abc", "timeoutMs": 4000})[1])[:60])
q = " ".join(chr(97 + i % 26) + (chr(97 + (i * 7) % 26) if i >= 26 else "") + "*" for i in range(64))
attack("7 search, 64 prefix terms, timeoutMs 100", "search", {"collection": "pages", "index": "t", "query": q, "timeoutMs": 100})
# another search of the same index during a long ranking
i, t0 = send("tools/call", {"name": "search", "arguments": {"path": store, "collection": "pages", "index": "t", "query": q, "timeoutMs": 4000}})
time.sleep(0.05)
dt, m = call("search", {"collection": "pages", "index": "t", "query": "zzq", "timeoutMs": 4000})
t1, m2 = wait(i)
print(f"7 a narrow search during a broad one: {dt*1000:.0f} ms (the broad one: {(t1-t0)*1000:.0f} ms: {text(m2)})")
results.append(("7 narrow search during a broad one (ms)", dt * 1000, 0, 0, text(m)))
attack("7 context_pack over every page (deadline 5 s)", "context_pack", {"collection": "pages", "field": "body", "query": q.replace("*", ""), "budget": 100000})
attack("7 define_search_index that builds over every page (deadline 5 s)", "define_search_index", {"definition": {"collection": "pages", "name": "t2", "fields": ["body"]}})
p.stdin.close(); p.wait(30)
print(json.dumps(results, indent=1))
