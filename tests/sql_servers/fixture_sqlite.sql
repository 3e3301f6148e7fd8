-- The SQLite fixture (tests/sql_servers/run.sh loads it with the sqlite3 shell).
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC, big INTEGER, ratio REAL,
                    flag BOOLEAN, data BLOB, note TEXT);
CREATE INDEX items_name_idx ON items (name);
CREATE UNIQUE INDEX items_big_uq ON items (big);
CREATE VIEW cheap_items AS SELECT id, name FROM items WHERE price < 10;
CREATE TABLE scratch (k TEXT PRIMARY KEY, v INTEGER);
INSERT INTO items VALUES (1, 'apple', '1.50', 9007199254740993, 0.5, 1, x'00ff10', NULL),
                         (2, 'banana', '12.00', 42, 2.25, 0, NULL, 'ripe'),
                         (3, 'cherry', '7.25', -5, NULL, NULL, x'', NULL);
WITH RECURSIVE g(n) AS (SELECT 100 UNION ALL SELECT n + 1 FROM g WHERE n < 1099)
INSERT INTO items SELECT n, 'bulk' || n, n, n, n, 1, NULL, printf('%.100c', 'x') FROM g;
