package mysql

import (
	"context"
	"database/sql"
	"fmt"
)

// ServerID is the server's server_uuid (MariaDB: server_uid) and the
// schema (source.ServerID).
func (s *mySource) ServerID(ctx context.Context) (string, error) {
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
