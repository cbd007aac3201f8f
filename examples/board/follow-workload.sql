-- The changes TestFollowExamples (migrate/follow_examples_test.go) makes
-- while `migrate --follow` runs, on both engines: each statement is a
-- transaction of its own, except the ones between BEGIN; and COMMIT;.
-- User 1 is the test's own (its sentinel change); nothing here touches it.
BEGIN;
INSERT INTO emails (email_id, local_part, domain) VALUES (401, 'new.user', 'example.com');
INSERT INTO users (user_id, email_id, nickname, hashed_password, created_at) VALUES (401, 401, 'Newcomer', '$2b$12$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0', '2025-12-31 10:00:00');
COMMIT;
UPDATE users SET nickname = 'Renamed', hashed_password = '$2b$12$0123456789012345678901234567890123456789012345678901' WHERE user_id = 2;
-- Key-moving updates: a user's sort key is its created_at, an email's its domain.
UPDATE users SET created_at = '2023-02-01 00:00:00' WHERE user_id = 3;
UPDATE emails SET domain = 'example.net' WHERE email_id = 2;
INSERT INTO categories (category_id, name, created_at) VALUES (9, 'Streams', '2025-12-31 10:00:00');
UPDATE categories SET name = 'Café ☕ & tea' WHERE category_id = 8;
INSERT INTO tags (tag_id, name, created_at) VALUES (31, 'cdc', '2025-12-31 10:00:00');
BEGIN;
INSERT INTO posts (post_id, user_id, category_id, kind, state, title, body, created_at) VALUES (1740, 401, 9, 'question', 'DRAFT', 'How do I follow changes?', 'With a slot.', '2025-12-31 10:05:00');
INSERT INTO post_tags (post_id, tag_id, created_at) VALUES (1740, 31, '2025-12-31 10:05:00');
COMMIT;
-- Publishing moves a post's items: their sort keys begin with the state.
UPDATE posts SET state = 'PUBLISHED' WHERE post_id = 502;
-- Out of its category: the category_post item goes (its where).
UPDATE posts SET category_id = NULL WHERE post_id = 1;
UPDATE posts SET category_id = 9 WHERE post_id = 503;
UPDATE posts SET title = 'Re: hot partitions (edited)', body = 'Edited.' WHERE post_id = 3;
UPDATE post_tags SET created_at = '2025-01-01 00:00:00' WHERE post_id = 2 AND tag_id = 16;
BEGIN;
DELETE FROM post_tags WHERE post_id = 8;
DELETE FROM posts WHERE post_id = 8;
COMMIT;
