-- The changes TestFollowExamples (migrate/follow_examples_test.go) makes
-- while `migrate --follow` runs on the PostgreSQL edition (the MySQL one's
-- are follow-workload.mysql.sql): each statement is a transaction of its
-- own, except the ones between BEGIN; and COMMIT;. Artist 1 is the test's
-- own (its sentinel change); nothing here touches its item.
INSERT INTO artist (artist_id, name) VALUES (276, 'New Artist');
UPDATE artist SET name = 'Accept (remastered)' WHERE artist_id = 2;
INSERT INTO album (album_id, title, artist_id) VALUES (348, 'First Album', 276);
-- Key-moving: an album's partition key is its artist's.
UPDATE album SET artist_id = 276 WHERE album_id = 5;
UPDATE album SET title = 'Big Ones (deluxe)' WHERE album_id = 6;
INSERT INTO track (track_id, name, album_id, media_type_id, genre_id, composer, milliseconds, bytes, unit_price) VALUES (3504, 'New Track', 348, 1, 1, NULL, 200000, 4000000, 0.99);
UPDATE track SET album_id = NULL WHERE track_id = 3;
UPDATE track SET name = 'Fast As a Shark (live)', unit_price = 1.29 WHERE track_id = 4;
INSERT INTO playlist (playlist_id, name) VALUES (19, 'Followed');
INSERT INTO playlist_track (playlist_id, track_id) VALUES (19, 3504), (19, 1);
BEGIN;
DELETE FROM playlist_track WHERE playlist_id = 18;
DELETE FROM playlist WHERE playlist_id = 18;
COMMIT;
-- Key-moving: an invoice's sort key holds its date, its partition key its customer.
UPDATE invoice SET invoice_date = '2025-06-01 00:00:00' WHERE invoice_id = 1;
UPDATE invoice SET customer_id = 3, total = 4.96 WHERE invoice_id = 2;
BEGIN;
INSERT INTO invoice (invoice_id, customer_id, invoice_date, billing_address, billing_city, billing_state, billing_country, billing_postal_code, total) VALUES (413, 5, '2025-12-31 00:00:00', 'Klanova 9/506', 'Prague', NULL, 'Czech Republic', '14700', 1.98);
INSERT INTO invoice_line (invoice_line_id, invoice_id, track_id, unit_price, quantity) VALUES (2241, 413, 3504, 0.99, 1), (2242, 413, 1, 0.99, 1);
COMMIT;
UPDATE invoice_line SET quantity = 2 WHERE invoice_line_id = 5;
-- Key-moving: a line's partition key is its invoice's.
UPDATE invoice_line SET invoice_id = 413 WHERE invoice_line_id = 6;
BEGIN;
DELETE FROM invoice_line WHERE invoice_id = 3;
DELETE FROM invoice WHERE invoice_id = 3;
COMMIT;
UPDATE customer SET email = 'luisg@embraer.example' WHERE customer_id = 1;
UPDATE employee SET title = 'General Manager (acting)' WHERE employee_id = 1;
UPDATE genre SET name = 'Opera & Operetta' WHERE genre_id = 25;
UPDATE media_type SET name = 'AAC audio' WHERE media_type_id = 5;
