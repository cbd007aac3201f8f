package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// The --include and --exclude patterns of introspect and init.

// tableFilter is introspect's and init's choice of the source's tables:
// --include and --exclude globs. --table, their spelling before --include
// (--table names the DynamoDB table in every other command), is accepted
// for one release with a warning.
type tableFilter struct {
	includes, excludes []string
	legacy             []string // --table (deprecated)
}

func (tf *tableFilter) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVar(&tf.includes, "include", nil, "only the source tables that match this glob (name, or schema.name with a dot); repeatable")
	f.StringArrayVar(&tf.excludes, "exclude", nil, "leave out the source tables that match this glob; repeatable")
	f.StringArrayVar(&tf.legacy, "table", nil, "deprecated: use --include")
	_ = f.MarkHidden("table")
}

// check warns of --table on stderr (taking its patterns as --include) and
// adds a line for each pattern introspect does not take.
func (tf *tableFilter) check(cmd *cobra.Command, stderr io.Writer, c *checks) {
	for _, p := range tf.legacy {
		fmt.Fprintf(stderr, "remodel: --table %s is deprecated for %s and will be removed: use --include %s (--table names the DynamoDB table)\n", p, cmd.Name(), p)
	}
	tf.includes = append(tf.includes, tf.legacy...)
	tf.legacy = nil
	c.tablePatterns(tf.includes, tf.excludes)
}

// tablePatterns adds a line for each --include or --exclude pattern that
// introspect does not take.
func (c *checks) tablePatterns(tables, excludes []string) {
	for _, f := range []struct {
		flag     string
		patterns []string
	}{{"include", tables}, {"exclude", excludes}} {
		for _, p := range f.patterns {
			if err := introspect.CheckPattern(p); err != nil {
				*c = append(*c, fmt.Sprintf("--%s: %v", f.flag, err))
			}
		}
	}
}

// inspectTables opens the source and reads its schema, keeping the tables
// that --include and --exclude choose; an --include that matches no table is an
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
// --include and --exclude select.
func inspectSource(ctx context.Context, src source.Source, tables, excludes []string) (*introspect.Schema, error) {
	s, err := src.Inspect(ctx)
	if err != nil {
		return nil, err
	}
	if missing := s.Unmatched(tables); len(missing) > 0 {
		lines := make([]string, len(missing))
		for i, p := range missing {
			lines[i] = fmt.Sprintf("--include %q matches no table of the source", p)
		}
		return nil, fmt.Errorf("%s", strings.Join(lines, "\n"))
	}
	return s.Filter(tables, excludes), nil
}
