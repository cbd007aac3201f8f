package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// Release ends the transactions of the readers (and of the connection
// that exported their snapshot).
func (s *pgSnapshot) Release(ctx context.Context) error {
	for _, c := range s.conns() {
		if err := s.src.exec(ctx, c, "ending a reader transaction", "COMMIT"); err != nil {
			return err
		}
	}
	return nil
}

// Renew starts the readers' transactions again: one reader takes its
// snapshot at its first read (no connection exports one for it, and the
// one that did is closed); several import the one a new transaction of
// the coordinating connection exports.
func (s *pgSnapshot) Renew(ctx context.Context) error {
	const begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	if len(s.readers) == 1 {
		if s.coord != nil {
			s.coord.Close(ctx)
			s.coord = nil
		}
		return s.src.exec(ctx, s.readers[0].conn, "starting a reader transaction", begin)
	}
	if s.coord == nil {
		return source.ErrNotRenewable
	}
	if err := s.src.exec(ctx, s.coord, "starting the snapshot transaction", begin); err != nil {
		return err
	}
	var id string
	if err := source.Worded("exporting the snapshot", s.src.step(ctx, "exporting the snapshot", func(ctx context.Context) error {
		return s.coord.QueryRow(ctx, "SELECT pg_export_snapshot()").Scan(&id)
	})); err != nil {
		return err
	}
	for _, r := range s.readers {
		if err := s.src.exec(ctx, r.conn, "starting a reader transaction", begin); err != nil {
			return err
		}
		if err := s.src.exec(ctx, r.conn, "importing snapshot "+id, "SET TRANSACTION SNAPSHOT '"+id+"'"); err != nil {
			return err
		}
	}
	return nil
}

// conns are the snapshot's connections in a transaction.
func (s *pgSnapshot) conns() []*pgx.Conn {
	out := make([]*pgx.Conn, 0, len(s.readers)+1)
	if s.coord != nil {
		out = append(out, s.coord)
	}
	for _, r := range s.readers {
		out = append(out, r.conn)
	}
	return out
}
