// Package ownserver starts throw-away database servers for tests that need
// a server configured otherwise than the machine's: a PostgreSQL cluster
// with pg_stat_statements in shared_preload_libraries, a MariaDB (or MySQL)
// server with performance_schema on. Each runs from its own temporary
// directory on a free port of 127.0.0.1, as a child of the test process,
// and is stopped and removed when the test ends; the system's services are
// never touched.
//
// A server that cannot start (no binaries, a failed start) skips the test,
// or fails it under REMODEL_REQUIRE_SERVICES=1, as internal/testenv does
// for a missing service. Only tests import this package.
//
// Environment:
//
//	REMODEL_TEST_PGBIN      the directory of initdb and postgres (default: PATH, then the newest /usr/lib/postgresql/*/bin)
//	REMODEL_TEST_MARIADBD   the server binary (default: mariadbd or mysqld in PATH or /usr/sbin)
package ownserver
