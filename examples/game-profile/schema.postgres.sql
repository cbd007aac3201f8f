-- game-profile: the user store of an online game and its back office, from
-- the article "DynamoDB 설계 리뷰" (seed 003), as a relational database
-- (PostgreSQL). See README.md for the ERD, the DynamoDB design and the
-- access patterns. Re-runnable: drops first.

DROP TABLE IF EXISTS login_sessions;
DROP TABLE IF EXISTS user_servers;
DROP TABLE IF EXISTS accounts;
DROP TABLE IF EXISTS users;
DROP TABLE IF EXISTS internal_services;
DROP TABLE IF EXISTS internal_workforce;

-- A player: what the game reads at login.
CREATE TABLE users (
    user_id    VARCHAR(12) PRIMARY KEY,          -- USER000001
    name       VARCHAR(50) NOT NULL,
    tel        VARCHAR(11) NOT NULL,             -- digits, no dashes
    addr       VARCHAR(255) NOT NULL,
    pwd_hash   VARCHAR(64) NOT NULL,
    valid      BOOLEAN NOT NULL,
    created_at TIMESTAMP(0) NOT NULL
);

-- A user's accounts (1:N): read with the user, as a join.
CREATE TABLE accounts (
    acc_id    VARCHAR(16) PRIMARY KEY,           -- 03-240-000001 (branch, product, number)
    user_id   VARCHAR(12) NOT NULL,
    balance   BIGINT NOT NULL,
    opened_at TIMESTAMP(0) NOT NULL,
    CONSTRAINT fk_accounts_user FOREIGN KEY (user_id) REFERENCES users (user_id)
);
CREATE INDEX idx_accounts_user ON accounts (user_id);

-- The servers a user first connected to (1:N, fixed once written): embedded
-- in the user's item.
CREATE TABLE user_servers (
    user_id  VARCHAR(12) NOT NULL,
    srv_id   VARCHAR(20) NOT NULL,               -- SRV_001_LOBBY
    region   VARCHAR(10) NOT NULL,               -- SEOUL, TOKYO, ...
    first_at TIMESTAMP(0) NOT NULL,
    PRIMARY KEY (user_id, srv_id),
    CONSTRAINT fk_user_servers_user FOREIGN KEY (user_id) REFERENCES users (user_id)
);

-- A login session: expires 30 days after it was created.
CREATE TABLE login_sessions (
    session_id VARCHAR(32) PRIMARY KEY,
    user_id    VARCHAR(12) NOT NULL,
    client_ip  VARCHAR(45) NOT NULL,
    created_at TIMESTAMP(0) NOT NULL,
    CONSTRAINT fk_login_sessions_user FOREIGN KEY (user_id) REFERENCES users (user_id)
);

-- The back office: people (TB_INTERNAL_WORKFORCE) ...
CREATE TABLE internal_workforce (
    employee_id VARCHAR(12) PRIMARY KEY,         -- EMP00001
    mob_tel_no  VARCHAR(11) NOT NULL,
    resid_id    VARCHAR(13) NOT NULL,
    addr        VARCHAR(255) NOT NULL,
    work_tel_no VARCHAR(11) NOT NULL,
    home_tel_no VARCHAR(11),
    manager_id  VARCHAR(12),                     -- NULL for the head of the office
    CONSTRAINT fk_workforce_manager FOREIGN KEY (manager_id) REFERENCES internal_workforce (employee_id)
);

-- ... and services (TB_INTERNAL_SERVICE), each with a manager.
CREATE TABLE internal_services (
    service_id  VARCHAR(12) PRIMARY KEY,         -- SVC0001
    manager_id  VARCHAR(12) NOT NULL,
    repr_tel_no VARCHAR(11) NOT NULL,
    entry_point VARCHAR(255) NOT NULL,
    create_dt   TIMESTAMPTZ(0) NOT NULL,
    modified_dt TIMESTAMPTZ(0) NOT NULL,
    CONSTRAINT fk_services_manager FOREIGN KEY (manager_id) REFERENCES internal_workforce (employee_id)
);
