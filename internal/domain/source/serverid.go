package source

import (
	"context"
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
		return s.ServerID(ctx)
	}
	return "", fmt.Errorf("source: no server identity for %T", src)
}

// identified is a source that can name the database it reads (every
// engine's source does).
type identified interface {
	ServerID(ctx context.Context) (string, error)
}
