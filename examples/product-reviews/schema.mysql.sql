-- product-reviews: the reviews of an online shop's products, for the sorted
-- review list of the article on DynamoDB sort keys (seed 002), as a
-- relational database (MySQL 8 / MariaDB 10.11). See README.md for the ERD,
-- the DynamoDB design and the access patterns. Re-runnable: drops first.
--
-- score is SMALLINT, not TINYINT: a TINYINT(1) reads as a boolean. The
-- TIMESTAMP column carries an explicit DEFAULT so that neither engine adds an
-- implicit "ON UPDATE CURRENT_TIMESTAMP" to it. Foreign keys are table-level
-- constraints because MySQL parses and ignores inline REFERENCES.

DROP TABLE IF EXISTS reviews;
DROP TABLE IF EXISTS products;

CREATE TABLE products (
    product_id BIGINT PRIMARY KEY,
    name       VARCHAR(100) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A review: a score of 1 to 5, optionally a text (body NULL: a rating
-- only), and the likes other shoppers gave it. The likes fit the 8 digits
-- the sort key pads them to.
CREATE TABLE reviews (
    review_id  BIGINT PRIMARY KEY,
    product_id BIGINT NOT NULL,
    author     VARCHAR(40) NOT NULL,
    body       TEXT,
    likes      INTEGER NOT NULL DEFAULT 0,
    score      SMALLINT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    KEY idx_reviews_product (product_id),
    CONSTRAINT ck_reviews_body CHECK (body <> ''),
    CONSTRAINT ck_reviews_likes CHECK (likes BETWEEN 0 AND 99999999),
    CONSTRAINT ck_reviews_score CHECK (score BETWEEN 1 AND 5),
    CONSTRAINT fk_reviews_product FOREIGN KEY (product_id) REFERENCES products (product_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
