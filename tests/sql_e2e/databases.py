"""The test databases (SQLite file, PostgreSQL and MariaDB servers started by run.sh), their
fingerprints (schema and data), the config that declares them, and the SQL corpus files."""
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

from harness import ENV, WORK


class Db:
    def __init__(self, dialect):
        self.dialect = dialect
        self.password = None
        if dialect == "sqlite":
            self.file = f"{WORK}/e2e.sqlite"
        elif dialect == "postgres":
            self.port, self.user = os.environ["OMGDB_TEST_PG_PORT"], os.environ["OMGDB_TEST_PG_USER"]
            self.password, self.db = os.environ["OMGDB_TEST_PG_PASSWORD"], os.environ["OMGDB_TEST_PG_DB"]
        else:
            self.port, self.user = os.environ["OMGDB_TEST_MARIADB_PORT"], os.environ["OMGDB_TEST_MARIADB_USER"]
            self.password, self.db = os.environ["OMGDB_TEST_MARIADB_PASSWORD"], os.environ["OMGDB_TEST_MARIADB_DB"]
        self.run("DROP VIEW IF EXISTS people_names")
        self.run("DROP TABLE IF EXISTS people")
        self.run("CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, secret VARCHAR(40))")
        self.run("CREATE INDEX people_name ON people (name)")
        self.run("INSERT INTO people VALUES (1,'ana','row-secret-ana'),(2,'bo','row-secret-bo'),(3,'cy',NULL)")
        self.run("CREATE VIEW people_names AS SELECT name FROM people")

    def run(self, sql):
        if self.dialect == "sqlite":
            c = sqlite3.connect(self.file)
            rows = c.execute(sql).fetchall()
            c.commit()
            c.close()
            return rows
        if self.dialect == "postgres":
            cmd = ["psql", "-qAtX", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", self.port, "-U", self.user,
                   "-d", self.db, "-c", sql]
            env = dict(os.environ, PGPASSWORD=self.password)
        else:
            cmd = ["mariadb", "--no-defaults", "-N", "-B", "-h", "127.0.0.1", "-P", self.port, "-u", self.user,
                   f"-p{self.password}", self.db, "-e", sql]
            env = os.environ
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
        return [tuple(line.split("\t" if self.dialect == "mysql" else "|")) for line in out.splitlines() if line]

    def busy(self):
        """Statements of other sessions still running the endless test query (PostgreSQL, MariaDB)."""
        if self.dialect == "postgres":
            q = "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%endless%' AND pid <> pg_backend_pid()"
        elif self.dialect == "mysql":
            q = "SELECT count(*) FROM information_schema.processlist WHERE info LIKE '%endless%' AND id <> connection_id()"
        else:
            return 0
        return int(self.run(q)[0][0])

    def count(self, where="1=1"):
        return int(self.run(f"SELECT count(*) FROM people WHERE {where}")[0][0])

    def fingerprint(self):
        """A hash of the whole database: schema and data (and PostgreSQL large objects)."""
        if self.dialect == "sqlite":
            c = sqlite3.connect(self.file)
            text = "\n".join(c.iterdump())
            c.close()
        elif self.dialect == "postgres":
            text = subprocess.run(["pg_dump", "-h", "127.0.0.1", "-p", self.port, "-U", self.user, "-d", self.db],
                                  capture_output=True, text=True, check=True,
                                  env=dict(os.environ, PGPASSWORD=self.password)).stdout
            # pg_dump 15.14+ brackets its output with \restrict/\unrestrict and a random key.
            text = "\n".join(l for l in text.splitlines() if not l.startswith(("\\restrict", "\\unrestrict")))
            text += str(self.run("SELECT count(*) FROM pg_largeobject_metadata"))
        else:
            text = subprocess.run(["mariadb-dump", "--no-defaults", "--skip-dump-date", "-h", "127.0.0.1", "-P",
                                   self.port, "-u", self.user, f"-p{self.password}", "--routines", "--events",
                                   "--triggers", self.db], capture_output=True, text=True, check=True).stdout
        return hashlib.sha256(text.encode()).hexdigest()

    def toml(self, name, access, approve, timeout="10s"):
        lines = [f'[[connections]]', f'name = "{name}"', f'label = "{self.dialect} {access}"',
                 f'dialect = "{self.dialect}"', f'mcp_access = "{access}"', f'approve = "{approve}"',
                 f'statement_timeout = "{timeout}"']
        if self.dialect == "sqlite":
            lines.append(f'file = "{self.file}"')
        else:
            env_name = "E2E_PG_PASSWORD" if self.dialect == "postgres" else "E2E_MARIADB_PASSWORD"
            ENV[env_name] = self.password
            lines += ['host = "127.0.0.1"', f"port = {self.port}", f'user = "{self.user}"', f'database = "{self.db}"',
                      f'password = "${{env:{env_name}}}"']
        return "\n".join(lines) + "\n"


def write_config(path, dbs, approvals=True, timeout="6s"):
    text = f'scope = "read-write"\n[approvals]\nenabled = {"true" if approvals else "false"}\ntimeout = "{timeout}"\n'
    for db in dbs:
        d = db.dialect
        text += db.toml(f"{d}_rw", "read-write", "all") + db.toml(f"{d}_ro", "read-only", "writes")
        text += db.toml(f"{d}_auto", "read-write", "writes") + db.toml(f"{d}_off", "off", "all")
        text += db.toml(f"{d}_slow", "read-only", "writes", timeout="1s")
    with open(path, "w") as f:
        f.write(text)
    return path


CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sql", "corpus")


def corpus_lines(name, dialect):
    """(sql, note, check) of every line of a corpus file that applies to `dialect`."""
    out = []
    for raw in open(os.path.join(CORPUS, name), "rb").read().split(b"\n"):
        if not raw.strip() or raw.startswith(b"#"):
            continue
        fields = raw.split(b"\t")
        if len(fields) != 5:
            continue
        dialects = fields[0].decode().split(",")
        if "all" not in dialects and dialect not in dialects:
            continue
        sql = re.sub(rb"\\(n|r|t|\\|x[0-9a-fA-F]{2})",
                     lambda mo: {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"\\": b"\\"}.get(mo.group(1)) or
                     bytes([int(mo.group(1)[1:], 16)]), fields[2])
        out.append((sql, fields[3].decode(errors="replace"), fields[4].decode().strip()))
    return out


def load_corpus_fixture(db):
    path = os.path.join(CORPUS, f"fixture-{db.dialect}.sql")
    if db.dialect == "sqlite":
        c = sqlite3.connect(db.file)
        c.executescript(open(path).read())
        c.commit()
        c.close()
    elif db.dialect == "postgres":
        subprocess.run(["psql", "-qX", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", db.port, "-U", db.user, "-d",
                        db.db, "-f", path], check=True, capture_output=True, env=dict(os.environ, PGPASSWORD=db.password))
    else:
        with open(path) as f:
            subprocess.run(["mariadb", "--no-defaults", "-h", "127.0.0.1", "-P", db.port, "-u", db.user,
                            f"-p{db.password}", db.db], stdin=f, check=True, capture_output=True)
