package mysql

import (
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestMySQLReadersAllowStalls: every reader connection of a snapshot has a
// session net_write_timeout and net_read_timeout that cover the stall
// AllowStall was told of (10 minutes without it), where the server's 60 s
// default would drop a row stream held back by retrying writers.
func TestMySQLReadersAllowStalls(t *testing.T) {
	dsn := testenv.MySQL(t)
	ctx := sourcetest.Context(t)
	src := sourcetest.Open(t, ctx, dsn)
	check := func(want int64) {
		t.Helper()
		for i, r := range sourcetest.OpenSnapshot(t, ctx, src, 2).Readers() {
			var write, read int64
			if err := r.(*myReader).conn.QueryRowContext(ctx, "SELECT @@SESSION.net_write_timeout, @@SESSION.net_read_timeout").Scan(&write, &read); err != nil {
				t.Fatal(err)
			}
			if write != want || read != want {
				t.Errorf("reader %d: net_write_timeout %d, net_read_timeout %d, want %d", i, write, read, want)
			}
		}
	}
	check(600)
	source.AllowStall(src, 30*time.Minute) // --retry-for 30m
	check(31 * 60)
	source.AllowStall(src, 0)
	check(600)
	source.AllowStall(sourcetest.Open(t, ctx, testenv.Postgres(t)), time.Hour) // nothing to set there
}
