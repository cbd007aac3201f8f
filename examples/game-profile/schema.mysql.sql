-- game-profile: the user store of an online game and its back office, from
-- the article "DynamoDB 설계 리뷰" (seed 003), as a relational database
-- (MySQL 8 / MariaDB 10.11). See README.md for the ERD, the DynamoDB design
-- and the access patterns. Re-runnable: drops first.
--
-- TIMESTAMP columns carry an explicit DEFAULT CURRENT_TIMESTAMP so that neither
-- engine adds an implicit "ON UPDATE CURRENT_TIMESTAMP" to them. Foreign keys are
-- table-level constraints because MySQL parses and ignores inline REFERENCES.

DROP TABLE IF EXISTS login_sessions;
DROP TABLE IF EXISTS user_servers;
DROP TABLE IF EXISTS accounts;
DROP TABLE IF EXISTS users;
DROP TABLE IF EXISTS internal_services;
DROP TABLE IF EXISTS internal_workforce;

CREATE TABLE users (
    user_id    VARCHAR(12) PRIMARY KEY,
    name       VARCHAR(50) NOT NULL,
    tel        VARCHAR(11) NOT NULL,
    addr       VARCHAR(255) NOT NULL,
    pwd_hash   VARCHAR(64) NOT NULL,
    valid      BOOLEAN NOT NULL,
    created_at DATETIME NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE accounts (
    acc_id    VARCHAR(16) PRIMARY KEY,
    user_id   VARCHAR(12) NOT NULL,
    balance   BIGINT NOT NULL,
    opened_at DATETIME NOT NULL,
    KEY idx_accounts_user (user_id),
    CONSTRAINT fk_accounts_user FOREIGN KEY (user_id) REFERENCES users (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE user_servers (
    user_id  VARCHAR(12) NOT NULL,
    srv_id   VARCHAR(20) NOT NULL,
    region   VARCHAR(10) NOT NULL,
    first_at DATETIME NOT NULL,
    PRIMARY KEY (user_id, srv_id),
    CONSTRAINT fk_user_servers_user FOREIGN KEY (user_id) REFERENCES users (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE login_sessions (
    session_id VARCHAR(32) PRIMARY KEY,
    user_id    VARCHAR(12) NOT NULL,
    client_ip  VARCHAR(45) NOT NULL,
    created_at DATETIME NOT NULL,
    CONSTRAINT fk_login_sessions_user FOREIGN KEY (user_id) REFERENCES users (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE internal_workforce (
    employee_id VARCHAR(12) PRIMARY KEY,
    mob_tel_no  VARCHAR(11) NOT NULL,
    resid_id    VARCHAR(13) NOT NULL,
    addr        VARCHAR(255) NOT NULL,
    work_tel_no VARCHAR(11) NOT NULL,
    home_tel_no VARCHAR(11) NULL,
    manager_id  VARCHAR(12) NULL,
    CONSTRAINT fk_workforce_manager FOREIGN KEY (manager_id) REFERENCES internal_workforce (employee_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE internal_services (
    service_id  VARCHAR(12) PRIMARY KEY,
    manager_id  VARCHAR(12) NOT NULL,
    repr_tel_no VARCHAR(11) NOT NULL,
    entry_point VARCHAR(255) NOT NULL,
    create_dt   TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    modified_dt TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT fk_services_manager FOREIGN KEY (manager_id) REFERENCES internal_workforce (employee_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
