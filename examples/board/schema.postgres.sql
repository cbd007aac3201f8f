-- board: the single-table board of the article "잘 설계된 DynamoDB 앱은 단 하나의
-- 테이블만 필요합니다" as a relational database (PostgreSQL). See README.md for
-- the ERD, the DynamoDB design and the access patterns. Re-runnable: drops first.

DROP TABLE IF EXISTS post_tags;
DROP TABLE IF EXISTS tags;
DROP TABLE IF EXISTS posts;
DROP TABLE IF EXISTS categories;
DROP TABLE IF EXISTS users;
DROP TABLE IF EXISTS emails;

-- An e-mail address, kept apart from the user (1:1, users.email_id).
CREATE TABLE emails (
    email_id   BIGINT PRIMARY KEY,
    local_part VARCHAR(64) NOT NULL,
    domain     VARCHAR(255) NOT NULL,
    CONSTRAINT uq_emails_address UNIQUE (local_part, domain)
);

CREATE TABLE users (
    user_id         BIGINT PRIMARY KEY,
    email_id        BIGINT NOT NULL,
    nickname        VARCHAR(50) NOT NULL,
    hashed_password VARCHAR(60) NOT NULL,
    created_at      TIMESTAMP(0) WITH TIME ZONE NOT NULL,
    CONSTRAINT uq_users_email UNIQUE (email_id),
    CONSTRAINT fk_users_email FOREIGN KEY (email_id) REFERENCES emails (email_id)
);

CREATE TABLE categories (
    category_id BIGINT PRIMARY KEY,
    name        VARCHAR(50) NOT NULL,
    created_at  TIMESTAMP(0) WITH TIME ZONE NOT NULL,
    CONSTRAINT uq_categories_name UNIQUE (name)
);

-- A post is a question or an answer, a draft or published; a category is optional.
CREATE TABLE posts (
    post_id     BIGINT PRIMARY KEY,
    user_id     BIGINT NOT NULL,
    category_id BIGINT,
    kind        VARCHAR(16) NOT NULL,
    state       VARCHAR(16) NOT NULL,
    title       VARCHAR(200) NOT NULL,
    body        TEXT NOT NULL,
    created_at  TIMESTAMP(0) WITH TIME ZONE NOT NULL,
    CONSTRAINT ck_posts_kind CHECK (kind IN ('question', 'answer')),
    CONSTRAINT ck_posts_state CHECK (state IN ('DRAFT', 'PUBLISHED')),
    CONSTRAINT fk_posts_user FOREIGN KEY (user_id) REFERENCES users (user_id),
    CONSTRAINT fk_posts_category FOREIGN KEY (category_id) REFERENCES categories (category_id)
);

CREATE INDEX idx_posts_user_kind_state ON posts (user_id, kind, state);
CREATE INDEX idx_posts_category ON posts (category_id);

CREATE TABLE tags (
    tag_id     BIGINT PRIMARY KEY,
    name       VARCHAR(50) NOT NULL,
    created_at TIMESTAMP(0) WITH TIME ZONE NOT NULL,
    CONSTRAINT uq_tags_name UNIQUE (name)
);

-- Posts and tags, N:M.
CREATE TABLE post_tags (
    post_id    BIGINT NOT NULL,
    tag_id     BIGINT NOT NULL,
    created_at TIMESTAMP(0) WITH TIME ZONE NOT NULL,
    PRIMARY KEY (post_id, tag_id),
    CONSTRAINT fk_post_tags_post FOREIGN KEY (post_id) REFERENCES posts (post_id),
    CONSTRAINT fk_post_tags_tag FOREIGN KEY (tag_id) REFERENCES tags (tag_id)
);

CREATE INDEX idx_post_tags_tag ON post_tags (tag_id);
