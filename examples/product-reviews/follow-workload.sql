-- The changes TestFollowExamples (migrate/follow_examples_test.go) makes
-- while `migrate --follow` runs, on both engines: each statement is a
-- transaction of its own, except the ones between BEGIN; and COMMIT;.
-- Product 1 is the test's own (its sentinel change); nothing here touches its item.
INSERT INTO products (product_id, name) VALUES (41, '새 상품 41');
UPDATE products SET name = '보조 배터리 2 (v2)' WHERE product_id = 2;
-- Reviews are an entity from a query: the diff pass at the stop brings
-- their items up to date. likes and body are in the sort key: these move it.
INSERT INTO reviews (review_id, product_id, author, body, likes, score, created_at) VALUES (1051, 41, 'tester', 'Works as described.', 0, 4, '2025-12-31 10:00:00');
UPDATE reviews SET likes = likes + 1 WHERE review_id = 2;
UPDATE reviews SET body = NULL WHERE review_id = 3;
DELETE FROM reviews WHERE review_id = 501;
-- A product goes with its reviews (foreign keys), in one transaction.
BEGIN;
DELETE FROM reviews WHERE product_id = 37;
DELETE FROM products WHERE product_id = 37;
COMMIT;
