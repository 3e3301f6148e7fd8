#!/usr/bin/env python3
"""Transcript tests: JSON-RPC lines in, expected lines out, against the real omgdb binary.

A transcript file (*.txt in this folder) is a sequence of directives, one per line:

    # comment                      ignored
    @scope read                    `omgdb mcp --scope read` (default: no --scope flag)
    @args --max-result-bytes 2048  further arguments for `omgdb mcp`
    $ omgdb create $STORE          a setup command run before the server starts ($STORE,
                                   $DIR substituted; `omgdb` is the binary under test)
    > {"jsonrpc":...}              one line sent to the server's stdin (verbatim, $STORE
                                   substituted; `>` alone sends an empty line)
    < {"jsonrpc":...}              a line the server must write to stdout
    <tools 2 get inspect ...       the response with id 2 is a tools/list result naming
                                   exactly these tools, in this order
    <exit 0                        the exit status (default 0)

Expected lines are compared as JSON values. The string "*" matches any value, and a string
ending in "..." matches any string with that prefix. Responses may arrive in any order (tool
calls run concurrently), so every expected line must match one distinct output line, and
every output line must be expected. Each transcript gets a fresh temporary directory.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile


def matches(expected, actual):
    if expected == "*":
        return True
    if isinstance(expected, str) and expected.endswith("...") and isinstance(actual, str):
        return actual.startswith(expected[:-3])
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and expected.keys() == actual.keys()
                and all(matches(expected[k], actual[k]) for k in expected))
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(expected) == len(actual)
                and all(matches(e, a) for e, a in zip(expected, actual)))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if type(expected) != type(actual):  # 1 and 1.0 differ: ids keep their type
        return False
    return expected == actual


def run_transcript(binary, path):
    with tempfile.TemporaryDirectory(prefix="omgdb-transcript-") as tmp:
        store = os.path.join(tmp, "app.omgdb")
        subst = lambda s: s.replace("$STORE", store).replace("$DIR", tmp)
        args, inputs, expected, tools_checks, want_exit = [], [], [], [], 0
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        for no, raw in enumerate(lines, 1):
            line = raw.rstrip("\r")
            if not line or line.startswith("#"):
                continue
            if line.startswith("@scope "):
                args += ["--scope", line[7:].strip()]
            elif line.startswith("@args "):
                args += shlex.split(line[6:])
            elif line.startswith("$ "):
                cmd = shlex.split(subst(line[2:]))
                if cmd and cmd[0] == "omgdb":
                    cmd[0] = binary
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
                if r.returncode != 0:
                    return [f"line {no}: setup command failed ({r.returncode}): {r.stderr.strip()}"]
            elif line == ">":
                inputs.append("")
            elif line.startswith("> "):
                inputs.append(subst(line[2:]))
            elif line.startswith("<tools "):
                parts = line.split()
                tools_checks.append((no, json.loads(parts[1]), parts[2:]))
            elif line.startswith("<exit "):
                want_exit = int(line[6:])
            elif line.startswith("< "):
                try:
                    expected.append((no, json.loads(subst(line[2:]))))
                except json.JSONDecodeError as e:
                    return [f"line {no}: expected line is not JSON: {e}"]
            else:
                return [f"line {no}: unknown directive: {line}"]
        stdin = "".join(l + "\n" for l in inputs)
        proc = subprocess.run([binary, "mcp"] + args, input=stdin.encode(), capture_output=True,
                              timeout=120, cwd=tmp)
        out_lines = proc.stdout.decode("utf-8", "replace").split("\n")
        if out_lines and out_lines[-1] == "":
            out_lines.pop()
        failures = []
        if proc.returncode != want_exit:
            failures.append(f"exit status {proc.returncode}, expected {want_exit}; "
                            f"stderr: {proc.stderr.decode(errors='replace').strip()[-500:]}")
        actual = []
        for l in out_lines:
            try:
                actual.append(json.loads(l))
            except json.JSONDecodeError:
                failures.append(f"stdout line is not JSON: {l[:200]}")
        used = [False] * len(actual)
        for no, want, want_names in tools_checks:
            hit = next((i for i, a in enumerate(actual) if not used[i] and isinstance(a, dict)
                        and a.get("id") == want and "result" in a), None)
            if hit is None:
                failures.append(f"line {no}: no tools/list response with id {want}")
                continue
            used[hit] = True
            names = [t.get("name") for t in actual[hit]["result"].get("tools", [])]
            if names != want_names:
                failures.append(f"line {no}: tools {names}, expected {want_names}")
        for no, want in expected:
            hit = next((i for i, a in enumerate(actual) if not used[i] and matches(want, a)), None)
            if hit is None:
                failures.append(f"line {no}: expected output not found: {json.dumps(want)}")
            else:
                used[hit] = True
        for i, a in enumerate(actual):
            if not used[i]:
                failures.append(f"unexpected output: {json.dumps(a)[:400]}")
        return failures


def main():
    binary = os.path.abspath(sys.argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    names = sorted(n for n in os.listdir(here) if n.endswith(".txt"))
    if len(sys.argv) > 2:
        names = [n for n in names if any(p in n for p in sys.argv[2:])]
    passed = failed = 0
    for name in names:
        failures = run_transcript(binary, os.path.join(here, name))
        if failures:
            failed += 1
            print(f"FAIL {name}")
            for f in failures:
                print(f"    {f}")
        else:
            passed += 1
            print(f"ok   {name}")
    print(f"transcripts: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
