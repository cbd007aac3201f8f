package mysql

import (
	"context"

	"github.com/remodel-dev/remodel/internal/domain/source"
)

// StartShared is StartFollow: nothing is created on a MySQL server, and
// each shard's snapshot has its own binlog position.
func (s *mySource) StartShared(ctx context.Context, o source.FollowOptions, n int) (source.FollowStart, error) {
	return s.StartFollow(ctx, o, n)
}

// Earliest is the earliest of the binlog positions ps (binlogPos.compare).
func (s *mySource) Earliest(ps []source.Position) (source.Position, error) {
	var best source.Position
	var at binlogPos
	for _, p := range ps {
		b, err := parseBinlogPos(p)
		if err != nil {
			return "", err
		}
		if best == "" || b.compare(at) < 0 {
			best, at = p, b
		}
	}
	return best, nil
}
