-- The changes TestFollowExamples (migrate/follow_examples_test.go) makes
-- while `migrate --follow` runs, on both engines: each statement is a
-- transaction of its own, except the ones between BEGIN; and COMMIT;.
-- User 1000 is the test's own (its sentinel change); nothing here touches it.
INSERT INTO users (user_id, email, name, is_active, created_at) VALUES (1001, 'new.user.1001@example.org', 'New User', TRUE, '2025-12-31 10:00:00');
UPDATE users SET name = 'Renamed User', is_active = FALSE WHERE user_id = 2;
INSERT INTO services (service, display_name, created_at) VALUES ('music', 'Music', '2025-12-31 10:00:00');
UPDATE services SET display_name = 'Daily Mail' WHERE service = 'mail';
INSERT INTO personal (user_id, service, setting_type, settings, updated_at) VALUES (1001, 'music', 'theme', '{"mode":"dark"}', '2025-12-31 10:01:00');
UPDATE personal SET settings = '{"mode":"dark","font_scale":2}', updated_at = '2025-12-31 10:02:00' WHERE user_id = 1 AND service = 'news' AND setting_type = 'theme';
-- A key-moving update: the sort key holds the setting type.
UPDATE personal SET setting_type = 'theme_v2' WHERE user_id = 1 AND service = 'news' AND setting_type = 'theme';
-- Another, of a row nothing else here changes: its old item is named only by
-- the row before the update (PostgreSQL sends its old primary key, MySQL its
-- before image), which the follower must delete. (The one above is also named
-- by the value update before it, when both land in one batch.)
UPDATE personal SET setting_type = 'alerts_v2' WHERE user_id = 1 AND service = 'news' AND setting_type = 'alerts';
DELETE FROM personal WHERE user_id = 3 AND service = 'mail' AND setting_type = 'alerts';
INSERT INTO subscribe (service, content_type, content_origin_id, title, created_at) VALUES ('music', 'album', 1, 'First album', '2025-12-31 10:03:00');
-- Key-moving: the partition key holds content_origin_id (nobody subscribes to it yet).
UPDATE subscribe SET content_origin_id = 2 WHERE service = 'music' AND content_type = 'album' AND content_origin_id = 1;
UPDATE subscribe SET title = 'Zoë''s garden — part 3 (revised)' WHERE service = 'news' AND content_type = 'article' AND content_origin_id = 2;
BEGIN;
INSERT INTO subscribe_user (user_id, service, content_type, content_origin_id, subscribed_at) VALUES (1001, 'music', 'album', 2, '2025-12-31 10:04:00');
UPDATE subscribe_user SET subscribed_at = '2025-12-31 10:05:00' WHERE user_id = 1 AND service = 'news' AND content_type = 'photo' AND content_origin_id = 8170;
DELETE FROM subscribe_user WHERE user_id = 1 AND service = 'newsletter' AND content_type = 'photo' AND content_origin_id = 7854;
COMMIT;
-- A user leaves: their rows first (foreign keys), in one transaction.
BEGIN;
DELETE FROM subscribe_user WHERE user_id = 4;
DELETE FROM personal WHERE user_id = 4;
DELETE FROM users WHERE user_id = 4;
COMMIT;
