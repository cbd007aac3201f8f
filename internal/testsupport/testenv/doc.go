// Package testenv gives tests their real services: a fresh PostgreSQL
// database, a fresh MariaDB/MySQL database and the DynamoDB Local endpoint,
// each read from the environment and each cleaned up when the test ends.
// A database is named for its test process (prefix_p<pid>_<random>); its
// drop (PostgreSQL's WITH (FORCE)) has a long deadline and never fails the
// test: what is left behind, by a failed drop or a killed test binary, is
// dropped by the first database the next test process creates on that
// server (sweep.go).
//
// Environment:
//
//	REMODEL_TEST_POSTGRES   admin DSN, e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
//	REMODEL_TEST_MYSQL      admin DSN, e.g. mysql://root@127.0.0.1:3306/test
//	REMODEL_TEST_DYNAMODB   endpoint, e.g. http://127.0.0.1:8000
//	REMODEL_REQUIRE_SERVICES=1  a missing service fails the test instead of skipping it (CI)
package testenv
