CREATE TABLE users (id int PRIMARY KEY, email varchar(80) NOT NULL UNIQUE, nickname varchar(20) UNIQUE, `PK` text);
CREATE TABLE `groups` (id int PRIMARY KEY, `name` text NOT NULL);
CREATE TABLE memberships (user_id int NOT NULL, group_id int NOT NULL, since date NOT NULL, PRIMARY KEY (user_id, group_id),
  FOREIGN KEY (user_id) REFERENCES users (id), FOREIGN KEY (group_id) REFERENCES `groups` (id));
CREATE TABLE `order items` (id int PRIMARY KEY, `user id` int, `order` int NOT NULL, note text, FOREIGN KEY (`user id`) REFERENCES users (id));
CREATE TABLE codes (code varchar(12) NOT NULL UNIQUE, label text);
CREATE TABLE loose (a int, b int);
CREATE TABLE employees (id int PRIMARY KEY, manager_id int, name text NOT NULL, FOREIGN KEY (manager_id) REFERENCES employees (id));
CREATE TABLE tags (name varchar(300) PRIMARY KEY);
CREATE TABLE blobs (digest varbinary(16) PRIMARY KEY, size int NOT NULL);
CREATE TABLE events (id int NOT NULL, at date NOT NULL, user_id int NOT NULL, PRIMARY KEY (id, at))
  PARTITION BY RANGE COLUMNS (at) (PARTITION p2024 VALUES LESS THAN ('2025-01-01'), PARTITION p2025 VALUES LESS THAN ('2026-01-01'));
CREATE VIEW active_users AS SELECT id, email FROM users WHERE nickname IS NOT NULL;
