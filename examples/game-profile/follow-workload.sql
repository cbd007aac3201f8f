-- The changes TestFollowExamples (migrate/follow_examples_test.go) makes
-- while `migrate --follow` runs, on both engines: each statement is a
-- transaction of its own, except the ones between BEGIN; and COMMIT;.
-- USER000001 is the test's own (its sentinel change); nothing here touches its item.
INSERT INTO users (user_id, name, tel, addr, pwd_hash, valid, created_at) VALUES ('USER000801', 'New Player', '01000000801', '1 Test-ro, Seoul', '0123456789abcdef0123456789abcdef', TRUE, '2025-12-31 10:00:00');
UPDATE users SET addr = '2 Moved-ro, Busan', valid = FALSE WHERE user_id = 'USER000002';
-- Child rows of the embed INIT_SERVER: their user's item is written again.
INSERT INTO user_servers (user_id, srv_id, region, first_at) VALUES ('USER000801', 'SRV_007_WORLD', 'SEOUL', '2025-12-31 10:01:00');
UPDATE user_servers SET region = 'OSAKA' WHERE user_id = 'USER000002' AND srv_id = 'SRV_012_WORLD';
DELETE FROM user_servers WHERE user_id = 'USER000003' AND srv_id = 'SRV_003_WORLD';
UPDATE user_servers SET srv_id = 'SRV_099_WORLD' WHERE user_id = 'USER000248' AND srv_id = 'SRV_010_WORLD';
-- A child row moves to another user: both users' items are written again.
UPDATE user_servers SET user_id = 'USER000801' WHERE user_id = 'USER000248' AND srv_id = 'SRV_001_LOBBY';
INSERT INTO accounts (acc_id, user_id, balance, opened_at) VALUES ('01-001-009999', 'USER000801', 1000, '2025-12-31 10:02:00');
UPDATE accounts SET balance = balance + 500 WHERE acc_id = '02-658-000001';
-- Key-moving: an account's partition key is its user's.
UPDATE accounts SET user_id = 'USER000801' WHERE acc_id = '08-132-000002';
DELETE FROM accounts WHERE acc_id = '07-924-000003';
BEGIN;
INSERT INTO login_sessions (session_id, user_id, client_ip, created_at) VALUES ('00000000000000000000000000000801', 'USER000801', '10.0.0.1', '2025-12-31 10:03:00');
DELETE FROM login_sessions WHERE session_id = '20a9442554a3d9afb4e021b775408ac6';
UPDATE login_sessions SET client_ip = '10.0.0.2', created_at = '2025-12-31 10:04:00' WHERE session_id = 'ec35b6b9f41c8a7b59823f9ac17a39e9';
COMMIT;
UPDATE internal_workforce SET manager_id = 'EMP00002', home_tel_no = NULL WHERE employee_id = 'EMP00003';
INSERT INTO internal_services (service_id, manager_id, repr_tel_no, entry_point, create_dt, modified_dt) VALUES ('SVC0041', 'EMP00002', '15880041', 'https://new.game.example/41', '2025-12-31 10:00:00', '2025-12-31 10:00:00');
UPDATE internal_services SET entry_point = 'https://support.game.example/v2', modified_dt = '2025-12-31 11:00:00' WHERE service_id = 'SVC0001';
-- A user leaves: their rows first (foreign keys), in one transaction.
BEGIN;
DELETE FROM user_servers WHERE user_id = 'USER000004';
DELETE FROM accounts WHERE user_id = 'USER000004';
DELETE FROM login_sessions WHERE user_id = 'USER000004';
DELETE FROM users WHERE user_id = 'USER000004';
COMMIT;
