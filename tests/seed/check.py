#!/usr/bin/env python3
"""Checks the output of the seed's copy-paste session against the answers the seed documents.

  check.py OUT               check the session's stdout
  check.py --compare-seed SEED SESSION
                             check that SESSION holds the seed's commands verbatim
"""
import json
import re
import sys


def seed_commands(seed_text):
    section = seed_text.split("## A complete session, copy-paste", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return block.strip()


def compare_seed(seed_path, session_path):
    want = seed_commands(open(seed_path, encoding="utf-8").read())
    have = "\n".join(l for l in open(session_path, encoding="utf-8").read().splitlines()
                     if not l.startswith("#")).strip()
    if want != have:
        print("tests/seed/session.sh no longer matches the seed's session:")
        print(want)
        sys.exit(1)


def fail(msg):
    print("seed session: " + msg)
    sys.exit(1)


def check(out_path):
    lines = [l for l in open(out_path, encoding="utf-8").read().split("\n") if l]
    # stdout carries the `omgdb create` and `omgdb insert` output first, then the MCP replies.
    replies = [json.loads(l) for l in lines if l.startswith('{"jsonrpc"')]
    if len(replies) != 3:
        fail(f"expected 3 JSON-RPC replies, got {len(replies)}: {lines}")
    by_id = {r["id"]: r for r in replies}
    init = by_id[1]["result"]
    # The seed: protocolVersion "2024-11-05", capabilities.tools, serverInfo {"name":"omgdb","version":...}
    if init["protocolVersion"] != "2024-11-05":
        fail("initialize answered " + init["protocolVersion"])
    if not isinstance(init["capabilities"].get("tools"), dict):
        fail("capabilities.tools missing")
    if init["serverInfo"]["name"] != "omgdb" or not init["serverInfo"]["version"]:
        fail("serverInfo " + json.dumps(init["serverInfo"]))
    tools = {t["name"]: t for t in by_id[2]["result"]["tools"]}
    find = tools.get("find")
    if not find:
        fail("tools/list has no find")
    # The seed's find entry: these fields exactly.
    if find["inputSchema"]["type"] != "object":
        fail("find inputSchema type")
    if find["inputSchema"]["required"] != ["path", "collection"]:
        fail("find required " + json.dumps(find["inputSchema"]["required"]))
    for name, typ in [("path", "string"), ("collection", "string"), ("filter", "object"),
                      ("sort", "object"), ("skip", "integer"), ("limit", "integer")]:
        # The seed's property schemas, plus the description every parameter carries (issue 14).
        prop = dict(find["inputSchema"]["properties"].get(name) or {})
        if not isinstance(prop.pop("description", None), str) or prop != {"type": typ}:
            fail(f"find property {name}")
    if find["annotations"] != {"readOnlyHint": True, "idempotentHint": True,
                               "destructiveHint": False, "requiredScope": "read"}:
        fail("find annotations " + json.dumps(find["annotations"]))
    if not find["description"].startswith("Find documents matching a MongoDB-style filter"):
        fail("find description")
    if "drop_collection" in tools:
        fail("drop_collection is listed at the default scope")
    # "the find call returns the matching document as NDJSON inside a text block"
    result = by_id[3]["result"]
    if result.get("isError"):
        fail("find failed: " + json.dumps(result))
    block = result["content"][0]
    if block["type"] != "text":
        fail("find content is not a text block")
    docs = [json.loads(l) for l in block["text"].splitlines()]
    if len(docs) != 1 or docs[0].get("name") != "ana" or docs[0].get("age") != 30:
        fail("find returned " + block["text"])
    if not re.fullmatch(r"[0-9a-f]{24}", docs[0]["_id"].get("$oid", "")):
        fail("the generated _id is not an ObjectId: " + json.dumps(docs[0]["_id"]))
    print("seed session: 1 passed, 0 failed")


if __name__ == "__main__":
    if sys.argv[1] == "--compare-seed":
        compare_seed(sys.argv[2], sys.argv[3])
    else:
        check(sys.argv[1])
