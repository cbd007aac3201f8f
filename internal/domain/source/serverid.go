package source

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ServerID names the database a source reads by what it is, not by the
// address it is reached at: on PostgreSQL the cluster's system identifier
// (shared by its physical replicas) and the database name, on MySQL the
// server's server_uuid (MariaDB: server_uid) and the schema. A proxy port,
// a DNS alias or a failover endpoint of the same cluster give the same ID.
// It is "" with no error when the server does not let the user read it
// (PostgreSQL's pg_control_system() is not granted to every role).
func ServerID(ctx context.Context, src Source) (string, error) {
	if s, ok := src.(identified); ok {
		return s.serverID(ctx)
	}
	return "", fmt.Errorf("source: no server identity for %T", src)
}

// identified is a source that can name the database it reads (every
// engine's source does).
type identified interface {
	serverID(ctx context.Context) (string, error)
}

func (s *pgSource) serverID(ctx context.Context) (string, error) {
	var sys, db string
	err := s.conn.QueryRow(ctx, `SELECT system_identifier::text, current_database() FROM pg_control_system()`).Scan(&sys, &db)
	if err != nil {
		if isPermissionDenied(err) {
			return "", nil
		}
		return "", fmt.Errorf("source: reading the PostgreSQL system identifier: %w", err)
	}
	return fmt.Sprintf("postgres system %s database %s", sys, db), nil
}

func (s *mySource) serverID(ctx context.Context) (string, error) {
	// MySQL has server_uuid, MariaDB server_uid: whichever exists.
	rows, err := s.db.QueryContext(ctx, `SHOW GLOBAL VARIABLES WHERE Variable_name IN ('server_uuid', 'server_uid')`)
	if err != nil {
		return "", fmt.Errorf("source: reading the MySQL server's uuid: %w", err)
	}
	defer rows.Close()
	var id string
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return "", fmt.Errorf("source: reading the MySQL server's uuid: %w", err)
		}
		if id == "" || name == "server_uuid" {
			id = value
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("source: reading the MySQL server's uuid: %w", err)
	}
	if id == "" {
		return "", nil
	}
	var schema sql.NullString
	if err := s.db.QueryRowContext(ctx, `SELECT DATABASE()`).Scan(&schema); err != nil {
		return "", fmt.Errorf("source: reading the MySQL schema: %w", err)
	}
	return fmt.Sprintf("mysql server %s schema %s", id, schema.String), nil
}

// isPermissionDenied says whether PostgreSQL refused a statement for lack
// of a privilege (SQLSTATE 42501).
func isPermissionDenied(err error) bool {
	var se interface{ SQLState() string }
	return errors.As(err, &se) && se.SQLState() == "42501"
}
