package mysql

import (
	"context"

	"github.com/remodel-dev/remodel/internal/domain/source"
)

// Release ends the readers' transactions.
func (s *mySnapshot) Release(ctx context.Context) error {
	for _, r := range s.readers {
		if err := s.src.exec(ctx, r.conn, "ending a reader transaction", "COMMIT"); err != nil {
			return err
		}
	}
	return nil
}

// Renew starts the reader's transaction again, with a consistent snapshot
// (the session keeps its isolation level and timeouts). Several readers
// are lined up only under the global read lock, which is not taken for
// a renewal: ErrNotRenewable.
func (s *mySnapshot) Renew(ctx context.Context) error {
	if len(s.readers) != 1 {
		return source.ErrNotRenewable
	}
	return s.src.exec(ctx, s.readers[0].conn, "starting a reader transaction", "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY")
}
