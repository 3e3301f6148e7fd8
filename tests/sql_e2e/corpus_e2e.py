"""The bypass corpus end to end: every attempt on a read-only connection, data and schema
unchanged afterwards; the benign corpus runs."""
import hashlib
import http.client
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time

import harness
from harness import check, Mcp
from databases import CORPUS, corpus_lines, load_corpus_fixture


def bypass_corpus(db):
    """Every bypass attempt end to end on a read-only connection (reads run without a person, so a
    misclassified statement would reach the database): refused, and data and schema unchanged."""
    d = db.dialect
    if not os.path.exists(os.path.join(CORPUS, "bypass.tsv")):
        print("SKIP bypass corpus: tests/sql/corpus/bypass.tsv is missing", flush=True)
        return
    load_corpus_fixture(db)
    m = Mcp(harness.CFG)
    fp = db.fingerprint()
    tried = skipped = 0
    for sql, note, what in corpus_lines("bypass.tsv", d):
        try:
            text_sql = sql.decode("utf-8")
        except UnicodeDecodeError:
            skipped += 1  # JSON cannot carry invalid UTF-8; the classifier tests cover these
            continue
        sentinels = [p for p in re.findall(r"/tmp/omgdb-[A-Za-z0-9._-]+", text_sql) if not os.path.exists(p)]
        err, text, _ = m.call("executeSql", {"connection": f"{d}_ro", "sql": text_sql}, timeout=60)
        tried += 1
        check(err, f"{d}: bypass attempt did not succeed ({note}): {text_sql!r} -> {text[:200]}")
        after = db.fingerprint()
        check(after == fp, f"{d}: data and schema unchanged after {text_sql!r} ({note})")
        fp = after
        for p in sentinels:
            check(not os.path.exists(p), f"{d}: no file {p} after {text_sql!r}")
    ok = 0
    for sql, note, what in corpus_lines("benign.tsv", d):
        if what != "runs":
            continue
        err, text, _ = m.call("executeSql", {"connection": f"{d}_ro", "sql": sql.decode("utf-8", "replace")})
        ok += 0 if err else 1
        # The classifier must not refuse a benign read (no false refusals). The database layer
        # may still refuse what it cannot prove read-only: conservative, reported, not failed.
        check(not (err and text.startswith("Error: refused:")), f"{d}: the classifier lets a benign read through "
              f"({note}): {sql!r} -> {text[:200]}")
        if err and not text.startswith("Error: refused:"):
            print(f"NOTE {d}: the database layer refused a benign read ({note}): {sql!r} -> {text[:160]}", flush=True)
    m.close()
    check(db.fingerprint() == fp, f"{d}: the benign reads changed nothing")
    print(f"{d}: {tried} bypass attempts end to end ({skipped} not valid UTF-8, left to the classifier tests), "
          f"{ok} benign reads ran", flush=True)
