-- The changes TestFollowExamples (migrate/follow_examples_test.go) makes
-- while `migrate --follow` runs on the MySQL edition (the PostgreSQL one's
-- are follow-workload.postgres.sql): each statement is a transaction of its
-- own, except the ones between BEGIN; and COMMIT;. Artist 1 is the test's
-- own (its sentinel change); nothing here touches its item.
INSERT INTO Artist (ArtistId, Name) VALUES (276, 'New Artist');
UPDATE Artist SET Name = 'Accept (remastered)' WHERE ArtistId = 2;
INSERT INTO Album (AlbumId, Title, ArtistId) VALUES (348, 'First Album', 276);
-- Key-moving: an album's partition key is its artist's.
UPDATE Album SET ArtistId = 276 WHERE AlbumId = 5;
UPDATE Album SET Title = 'Big Ones (deluxe)' WHERE AlbumId = 6;
INSERT INTO Track (TrackId, Name, AlbumId, MediaTypeId, GenreId, Composer, Milliseconds, Bytes, UnitPrice) VALUES (3504, 'New Track', 348, 1, 1, NULL, 200000, 4000000, 0.99);
UPDATE Track SET AlbumId = NULL WHERE TrackId = 3;
UPDATE Track SET Name = 'Fast As a Shark (live)', UnitPrice = 1.29 WHERE TrackId = 4;
INSERT INTO Playlist (PlaylistId, Name) VALUES (19, 'Followed');
INSERT INTO PlaylistTrack (PlaylistId, TrackId) VALUES (19, 3504), (19, 1);
BEGIN;
DELETE FROM PlaylistTrack WHERE PlaylistId = 18;
DELETE FROM Playlist WHERE PlaylistId = 18;
COMMIT;
-- Key-moving: an invoice's sort key holds its date, its partition key its customer.
UPDATE Invoice SET InvoiceDate = '2025-06-01 00:00:00' WHERE InvoiceId = 1;
UPDATE Invoice SET CustomerId = 3, Total = 4.96 WHERE InvoiceId = 2;
BEGIN;
INSERT INTO Invoice (InvoiceId, CustomerId, InvoiceDate, BillingAddress, BillingCity, BillingState, BillingCountry, BillingPostalCode, Total) VALUES (413, 5, '2025-12-31 00:00:00', 'Klanova 9/506', 'Prague', NULL, 'Czech Republic', '14700', 1.98);
INSERT INTO InvoiceLine (InvoiceLineId, InvoiceId, TrackId, UnitPrice, Quantity) VALUES (2241, 413, 3504, 0.99, 1), (2242, 413, 1, 0.99, 1);
COMMIT;
UPDATE InvoiceLine SET Quantity = 2 WHERE InvoiceLineId = 5;
-- Key-moving: a line's partition key is its invoice's.
UPDATE InvoiceLine SET InvoiceId = 413 WHERE InvoiceLineId = 6;
BEGIN;
DELETE FROM InvoiceLine WHERE InvoiceId = 3;
DELETE FROM Invoice WHERE InvoiceId = 3;
COMMIT;
UPDATE Customer SET Email = 'luisg@embraer.example' WHERE CustomerId = 1;
UPDATE Employee SET Title = 'General Manager (acting)' WHERE EmployeeId = 1;
UPDATE Genre SET Name = 'Opera & Operetta' WHERE GenreId = 25;
UPDATE MediaType SET Name = 'AAC audio' WHERE MediaTypeId = 5;
