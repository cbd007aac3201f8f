package mysql

import (
	"context"

	"github.com/remodel-dev/remodel/internal/domain/source"
)

// FollowInfo reads the binlog's head (SHOW MASTER STATUS); a binlog has
// no slot.
func (s *mySource) FollowInfo(ctx context.Context, _ string, applied source.Position) (source.FollowInfo, error) {
	info := source.FollowInfo{Behind: -1, Retained: -1}
	const doing = "reading the binlog's head (SHOW MASTER STATUS)"
	c, err := s.conn(ctx)
	if err != nil {
		return info, err
	}
	defer c.Close()
	var head binlogPos
	err = s.step(ctx, doing, func(ctx context.Context) (err error) {
		head, err = masterStatus(ctx, c)
		return err
	})
	if err != nil {
		return info, source.Worded(doing, err)
	}
	head.GTID = "" // the position, not the GTID state
	info.Head = source.Position(head.String())
	if applied == "" {
		return info, nil
	}
	a, err := parseBinlogPos(applied)
	if err != nil {
		return info, err
	}
	info.Ahead = head.compare(a) > 0
	if head.File == a.File {
		info.Behind = max(int64(head.Pos)-int64(a.Pos), 0)
	}
	return info, nil
}
