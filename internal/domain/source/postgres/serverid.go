package postgres

import (
	"context"
	"errors"
	"fmt"
)

// ServerID is the cluster's system identifier and the database name
// (source.ServerID).
func (s *pgSource) ServerID(ctx context.Context) (string, error) {
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

// isPermissionDenied says whether PostgreSQL refused a statement for lack
// of a privilege (SQLSTATE 42501).
func isPermissionDenied(err error) bool {
	var se interface{ SQLState() string }
	return errors.As(err, &se) && se.SQLState() == "42501"
}
