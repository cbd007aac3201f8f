-- The changes TestFollowExamples (migrate/follow_examples_test.go) makes while
-- migrate --follow runs. Both entities read a query (each user's best of a
-- week, and friends' bests), so nothing is followed row by row: the diff pass
-- synchronises their items when the follower stops.
-- A new best for user 3 in week 1, and a lower play that changes nothing.
INSERT INTO plays (play_id, user_id, week_id, score, played_at) VALUES (900000001, 3, 1, 99998, '2014-04-14 10:00:00');
INSERT INTO plays (play_id, user_id, week_id, score, played_at) VALUES (900000002, 3, 1, 1, '2014-04-14 11:00:00');
-- A user renamed: every item that shows the name.
UPDATE users SET name = 'renamed 1' WHERE user_id = 1;
-- A play deleted and one corrected, in one transaction.
BEGIN;
DELETE FROM plays WHERE play_id = 2;
UPDATE plays SET score = 12345 WHERE play_id = 1;
COMMIT;
-- A friendship ended (both directions) and one made.
DELETE FROM friendships WHERE (user_id = 1 AND friend_id = 39) OR (user_id = 39 AND friend_id = 1);
INSERT INTO friendships (user_id, friend_id) VALUES (2, 3);
INSERT INTO friendships (user_id, friend_id) VALUES (3, 2);
