-- leaderboard: the weekly rankings of a mobile game from the article "14B.
-- DynamoDB에 맞는 데이터 구조 설계하기" as a relational database (MySQL 8 /
-- MariaDB 10.11). See README.md for the ERD, the DynamoDB design and the access
-- patterns. Re-runnable: drops first.
--
-- TIMESTAMP columns carry an explicit DEFAULT CURRENT_TIMESTAMP so that neither
-- engine adds an implicit "ON UPDATE CURRENT_TIMESTAMP" to them. Foreign keys are
-- table-level constraints because MySQL parses and ignores inline REFERENCES.

DROP TABLE IF EXISTS plays;
DROP TABLE IF EXISTS weeks;
DROP TABLE IF EXISTS friendships;
DROP TABLE IF EXISTS users;

CREATE TABLE users (
    user_id BIGINT PRIMARY KEY,
    name    VARCHAR(50) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A friendship is stored in both directions: (1, 2) and (2, 1).
CREATE TABLE friendships (
    user_id   BIGINT NOT NULL,
    friend_id BIGINT NOT NULL,
    PRIMARY KEY (user_id, friend_id),
    KEY idx_friendships_friend (friend_id),
    CONSTRAINT ck_friendships_self CHECK (user_id <> friend_id),
    CONSTRAINT fk_friendships_user FOREIGN KEY (user_id) REFERENCES users (user_id),
    CONSTRAINT fk_friendships_friend FOREIGN KEY (friend_id) REFERENCES users (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A ranking week, Friday to Thursday as in the article (2014-05-09,2014-05-15).
CREATE TABLE weeks (
    week_id   INTEGER PRIMARY KEY,
    starts_on DATE NOT NULL,
    ends_on   DATE NOT NULL,
    CONSTRAINT uq_weeks_starts_on UNIQUE (starts_on),
    CONSTRAINT ck_weeks_span CHECK (ends_on = starts_on + INTERVAL 6 DAY)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- One game played: the server records the score and the week it counts for.
CREATE TABLE plays (
    play_id   BIGINT PRIMARY KEY,
    user_id   BIGINT NOT NULL,
    week_id   INTEGER NOT NULL,
    score     INTEGER NOT NULL,
    played_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    KEY idx_plays_user_week (user_id, week_id),
    KEY idx_plays_week (week_id),
    CONSTRAINT ck_plays_score CHECK (score BETWEEN 0 AND 99999),
    CONSTRAINT fk_plays_user FOREIGN KEY (user_id) REFERENCES users (user_id),
    CONSTRAINT fk_plays_week FOREIGN KEY (week_id) REFERENCES weeks (week_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
