-- The objects every line of bypass.tsv and benign.tsv may use (MariaDB / MySQL).
CREATE TABLE t (id integer PRIMARY KEY, a text, b integer, updated_at datetime,
                set_id integer, lock_level integer, `delete` text);
CREATE TABLE users (id integer PRIMARY KEY, name text, email text, active boolean);
CREATE VIEW v AS SELECT id, a FROM t;
INSERT INTO t VALUES (1, 'x', 1, '2026-01-01', 1, 0, 'd1'), (2, 'y', 2, '2026-01-02', 1, 1, 'd2'),
                     (3, NULL, 3, '2026-01-03', 2, 2, 'd3');
INSERT INTO users VALUES (1, 'Ada', 'ada@example.invalid', true), (2, 'O''Brien', NULL, false);
