package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/domain/initmap"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// initFlags are init's flags as the command line sets them.
type initFlags struct {
	o     common
	tf    tableFilter
	out   outputFlags
	name  string
	force bool
	from  string
}

func (a *app) initCmd() *cobra.Command {
	f := &initFlags{}
	cmd := &cobra.Command{
		Use:     "init",
		Short:   "Write a starting mapping from the source's ERD",
		Long:    initLong,
		Example: initExamples,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(cmd, a); err != nil {
				return err
			}
			return a.runInit(cmd, f)
		},
	}
	f.register(cmd)
	return cmd
}

// check refuses flags out of their range, naming every problem at once,
// and an output file that exists without --force.
func (f *initFlags) check(cmd *cobra.Command, a *app) error {
	var c checks
	f.out.check(cmd, a.stderr, &c)
	output := f.out.file()
	f.tf.check(cmd, a.stderr, &c)
	if f.name != "" && !validTableName(f.name) && f.from == "" {
		c = append(c, fmt.Sprintf("--name %q is not a DynamoDB table name (3 to 255 of a-z A-Z 0-9 _ . -)", f.name))
	}
	if output != "" && !f.force {
		if _, err := os.Stat(output); err == nil {
			c = append(c, fmt.Sprintf("--output-file %s: the file exists (give --force to overwrite it)", output))
		}
	}
	return c.err()
}

// runInit opens the source and writes the mapping: from the --from file,
// or designed from the source's ERD.
func (a *app) runInit(cmd *cobra.Command, f *initFlags) error {
	src, err := f.o.open(cmd.Context())
	if err != nil {
		return err
	}
	defer src.Close()
	output := f.out.file()
	if f.from != "" {
		return a.initFrom(cmd.Context(), src, f.from, f.name, output, f.force, f.o.source != "")
	}
	return a.initFromERD(cmd.Context(), src, f)
}

// initFromERD designs the mapping from the source's ERD, its statement
// statistics and init's own counts, and writes it.
func (a *app) initFromERD(ctx context.Context, src source.Source, f *initFlags) error {
	// The statistics first: the ERD's queries are not the application's.
	st, err := initmap.ReadStatistics(ctx, src)
	if err != nil {
		return err
	}
	s, err := inspectSource(ctx, src, f.tf.includes, f.tf.excludes)
	if err != nil {
		return err
	}
	keys, err := initmap.CheckPartitionKeys(ctx, src, s)
	if err != nil {
		return err
	}
	// Init's own counts of the distinct values it decides on: the
	// source's statistics are missing before ANALYZE, and stale after a
	// load.
	measured, err := initmap.MeasureDistinct(ctx, src, s, &st)
	if err != nil {
		return err
	}
	doc := initmap.Generate(s, initmap.Options{Table: f.name, Statistics: &st, PartitionKeys: keys, Measured: measured})
	output := f.out.file()
	if output == "" {
		_, err := a.stdout.Write(doc)
		return err
	}
	if err := writeMapping(output, f.force, doc); err != nil {
		return err
	}
	a.initWrote(output, s, &st, f.o.source != "")
	return nil
}

// initWrote says on stderr which file init wrote from which database, and
// how to check it. The hint names --source when it came from the flag
// (sourceFlag): validate without a source checks the file alone (the DSN
// itself is not printed, it may hold a password).
func (a *app) initWrote(output string, s *introspect.Schema, st *initmap.Statistics, sourceFlag bool) {
	check := "remodel validate -m " + output
	if sourceFlag {
		check = "remodel validate --source DSN -m " + output
	}
	fmt.Fprintf(a.stderr, "wrote %s from %s database %s; check it with: %s\n", output, s.Engine, s.Database, check)
	if st.Unavailable != "" {
		fmt.Fprintf(a.stderr, "no access patterns from statement statistics: %s\n", st.Unavailable)
	}
}

func (f *initFlags) register(cmd *cobra.Command) {
	f.o.sourceFlag(cmd)
	f.out.register(cmd, "o", []string{"yaml"}, "instead")
	fl := cmd.Flags()
	fl.Lookup("output-file").Usage = "write the mapping to this file instead of stdout (refused if it exists, unless --force)"
	fl.BoolVar(&f.force, "force", false, "overwrite the --output-file file if it exists")
	fl.StringVar(&f.name, "name", "", "the DynamoDB table's name (default: the database's name); with --from, the file's table to map")
	fl.StringVar(&f.from, "from", "", "start from this design file: a DynamoDB MCP server schema.json or a migrationContract.json")
	f.tf.register(cmd)
}

// writeMapping writes a mapping file, refusing to overwrite one unless
// force.
func writeMapping(output string, force bool, out []byte) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !force {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(output, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return usagef("--output-file %s: the file exists (give --force to overwrite it)", output)
	}
	if err != nil {
		return fmt.Errorf("writing the mapping: %w", err)
	}
	if _, err := f.Write(out); err != nil {
		f.Close()
		return fmt.Errorf("writing the mapping: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the mapping: %w", err)
	}
	return nil
}

// validTableName reports whether s is a DynamoDB table name.
func validTableName(s string) bool {
	if len(s) < 3 || len(s) > 255 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return false
		}
	}
	return true
}
