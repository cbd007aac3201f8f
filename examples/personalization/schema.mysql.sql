-- personalization: the store of an internet portal's personalization data
-- (MySQL 8 / MariaDB 10.11). See README.md for the ERD and the access patterns.
-- Re-runnable: drops first.
--
-- TIMESTAMP columns carry an explicit DEFAULT CURRENT_TIMESTAMP so that neither
-- engine adds an implicit "ON UPDATE CURRENT_TIMESTAMP" to them. Foreign keys are
-- table-level constraints because MySQL parses and ignores inline REFERENCES.

DROP TABLE IF EXISTS subscribe_user;
DROP TABLE IF EXISTS subscribe;
DROP TABLE IF EXISTS personal;
DROP TABLE IF EXISTS services;
DROP TABLE IF EXISTS users;

CREATE TABLE users (
    user_id    BIGINT PRIMARY KEY,
    email      VARCHAR(255) NOT NULL UNIQUE,
    name       VARCHAR(100) NOT NULL,
    is_active  BOOLEAN NOT NULL DEFAULT TRUE,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE services (
    service      VARCHAR(32) PRIMARY KEY,
    display_name VARCHAR(100) NOT NULL,
    created_at   TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE personal (
    user_id      BIGINT NOT NULL,
    service      VARCHAR(32) NOT NULL,
    setting_type VARCHAR(32) NOT NULL,
    settings     JSON NOT NULL,
    updated_at   TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (user_id, service, setting_type),
    CONSTRAINT fk_personal_user FOREIGN KEY (user_id) REFERENCES users (user_id),
    CONSTRAINT fk_personal_service FOREIGN KEY (service) REFERENCES services (service)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE subscribe (
    service           VARCHAR(32) NOT NULL,
    content_type      VARCHAR(32) NOT NULL,
    content_origin_id BIGINT NOT NULL,
    title             VARCHAR(200) NOT NULL,
    created_at        TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (service, content_type, content_origin_id),
    CONSTRAINT fk_subscribe_service FOREIGN KEY (service) REFERENCES services (service)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE subscribe_user (
    user_id           BIGINT NOT NULL,
    service           VARCHAR(32) NOT NULL,
    content_type      VARCHAR(32) NOT NULL,
    content_origin_id BIGINT NOT NULL,
    subscribed_at     TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (user_id, service, content_type, content_origin_id),
    KEY idx_subscribe_user_service_content_type (service, content_type),
    CONSTRAINT fk_subscribe_user_user FOREIGN KEY (user_id) REFERENCES users (user_id),
    CONSTRAINT fk_subscribe_user_subscribe FOREIGN KEY (service, content_type, content_origin_id)
        REFERENCES subscribe (service, content_type, content_origin_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
