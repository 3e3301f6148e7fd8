-- The PostgreSQL fixture (tests/sql_servers/run.sh loads it with psql).
CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL, price numeric(10,2), big bigint,
                    ratio double precision, flag boolean, data bytea, note text);
CREATE INDEX items_name_idx ON items (name);
CREATE UNIQUE INDEX items_big_uq ON items (big);
CREATE VIEW cheap_items AS SELECT id, name FROM items WHERE price < 10;
CREATE TABLE scratch (k text PRIMARY KEY, v integer);
INSERT INTO items VALUES (1, 'apple', 1.50, 9007199254740993, 0.5, true, '\x00ff10', NULL),
                         (2, 'banana', 12.00, 42, 2.25, false, NULL, 'ripe'),
                         (3, 'cherry', 7.25, -5, NULL, NULL, '\x', NULL);
INSERT INTO items SELECT n, 'bulk' || n, n, n, n, true, NULL, repeat('x', 100) FROM generate_series(100, 1099) n;
