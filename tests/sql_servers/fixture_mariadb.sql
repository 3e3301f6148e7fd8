-- The MariaDB fixture (tests/sql_servers/run.sh loads it with the mariadb client).
CREATE TABLE items (id BIGINT PRIMARY KEY, name VARCHAR(100) NOT NULL, price DECIMAL(10,2), big BIGINT,
                    ratio DOUBLE, flag BOOLEAN, data BLOB, note TEXT) ENGINE=InnoDB;
CREATE INDEX items_name_idx ON items (name);
CREATE UNIQUE INDEX items_big_uq ON items (big);
CREATE VIEW cheap_items AS SELECT id, name FROM items WHERE price < 10;
CREATE TABLE scratch (k VARCHAR(100) PRIMARY KEY, v INT) ENGINE=InnoDB;
INSERT INTO items VALUES (1, 'apple', 1.50, 9007199254740993, 0.5, TRUE, x'00ff10', NULL),
                         (2, 'banana', 12.00, 42, 2.25, FALSE, NULL, 'ripe'),
                         (3, 'cherry', 7.25, -5, NULL, NULL, x'', NULL);
INSERT INTO items
  WITH RECURSIVE g(n) AS (SELECT 100 UNION ALL SELECT n + 1 FROM g WHERE n < 1099)
  SELECT n, CONCAT('bulk', n), n, n, n, TRUE, NULL, REPEAT('x', 100) FROM g;
