package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// The --table and --exclude patterns of introspect and init.

// tablePatterns adds a line for each --table or --exclude pattern that
// introspect does not take.
func (c *checks) tablePatterns(tables, excludes []string) {
	for _, f := range []struct {
		flag     string
		patterns []string
	}{{"table", tables}, {"exclude", excludes}} {
		for _, p := range f.patterns {
			if err := introspect.CheckPattern(p); err != nil {
				*c = append(*c, fmt.Sprintf("--%s: %v", f.flag, err))
			}
		}
	}
}

// inspectTables opens the source and reads its schema, keeping the tables
// that --table and --exclude choose; a --table that matches no table is an
// error. The caller closes the source.
func (o *common) inspectTables(ctx context.Context, tables, excludes []string) (source.Source, *introspect.Schema, error) {
	src, err := o.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	s, err := inspectSource(ctx, src, tables, excludes)
	if err != nil {
		src.Close()
		return nil, nil, err
	}
	return src, s, nil
}

// inspectSource reads the ERD of an open source and keeps the tables
// --table and --exclude select.
func inspectSource(ctx context.Context, src source.Source, tables, excludes []string) (*introspect.Schema, error) {
	s, err := src.Inspect(ctx)
	if err != nil {
		return nil, err
	}
	if missing := s.Unmatched(tables); len(missing) > 0 {
		lines := make([]string, len(missing))
		for i, p := range missing {
			lines[i] = fmt.Sprintf("--table %q matches no table of the source", p)
		}
		return nil, fmt.Errorf("%s", strings.Join(lines, "\n"))
	}
	return s.Filter(tables, excludes), nil
}
