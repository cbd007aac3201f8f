package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/domain/initmap"
)

func (a *app) initCmd() *cobra.Command {
	var (
		o     common
		tf    tableFilter
		out   outputFlags
		name  string
		force bool
	)
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a starting mapping from the source's ERD",
		Long: `init reads the source's ERD and writes a starting mapping file, explained in
YAML comments, for you to read and change; the same ERD always gives the same
file. The design it writes:

  - every table is an entity keyed by its primary key, PK = SK = NAME#{key},
    an item collection of its own; a table without a primary key is keyed by
    a unique key of NOT NULL columns (key:), or left out with a comment
    saying why, as views are; a partitioned table is mapped as its parent;
  - a table no other table refers to, with a NOT NULL foreign key to the
    whole key of a parent, is placed in the parent's item collection
    (PK = PARENT#{fk}, SK = NAME#{key});
  - a join table (its primary key is two such foreign keys) becomes
    adjacency items (PK = A#{a}, SK = B#{b}), read from the other side
    through the inverted index GSI1 (pk SK, sk PK);
  - every other foreign key and every unique key gets a path through an
    overloaded global index (GSI2, GSI3, ...: attributes GSInPK, GSInSK),
    except a foreign key whose column has at most 10 values with 100 rows
    each or more (a hot index partition): init counts the distinct values
    itself (every row of a table of at most 1000000 rows, the first 1000000
    of a larger one), so the design does not depend on whether the source
    was analysed, and the comments say which figures it counted and how;
  - access patterns with their SQL: each entity by its key, a parent with
    its item collection, the children by parent on both sides of each
    relationship, and each unique key's lookup.

The mapping validates, migrates and verifies as written; the keys follow
the foreign keys, not your application's queries, so change it to fit them.
Where the source keeps statement statistics (PostgreSQL pg_stat_statements,
MySQL/MariaDB performance_schema), a comment lists the SELECT statements run
most often, each with the access pattern that answers it, or a pattern derived
from it, or why there is none. A pattern is derived from a SELECT of one table
with equality conditions joined by AND (and at most one range on, or an ORDER
BY of, a date, timestamp or number column) that no pattern answers: a Query of
its entity's next overloaded index (pk the equality columns, sk the range or
order column), or of an index NUMn of its own with a number sort key, with the
statement's SQL, at the end of access_patterns.

--include PATTERN keeps only the tables that match (repeat it for several),
--exclude PATTERN leaves tables out, as for introspect (--table PATTERN, the
spelling before --include, works for one release, with a warning). The file goes to
stdout, or to --output-file FILE, which must not exist unless --force is
given.`,
		Example: `  remodel init --source $DSN --output-file mapping.yaml
  remodel init --source $DSN --exclude 'tmp_*' --name shop --output-file mapping.yaml --force
  remodel init --source $DSN --include 'order*' --include customer > mapping.yaml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var c checks
			out.check(cmd, a.stderr, &c)
			output := out.file()
			tf.check(cmd, a.stderr, &c)
			if name != "" && !validTableName(name) {
				c = append(c, fmt.Sprintf("--name %q is not a DynamoDB table name (3 to 255 of a-z A-Z 0-9 _ . -)", name))
			}
			if output != "" && !force {
				if _, err := os.Stat(output); err == nil {
					c = append(c, fmt.Sprintf("--output-file %s: the file exists (give --force to overwrite it)", output))
				}
			}
			if err := c.err(); err != nil {
				return err
			}
			src, err := o.open(cmd.Context())
			if err != nil {
				return err
			}
			defer src.Close()
			// The statistics first: the ERD's queries are not the
			// application's.
			st, err := initmap.ReadStatistics(cmd.Context(), src)
			if err != nil {
				return err
			}
			s, err := inspectSource(cmd.Context(), src, tf.includes, tf.excludes)
			if err != nil {
				return err
			}
			keys, err := initmap.CheckPartitionKeys(cmd.Context(), src, s)
			if err != nil {
				return err
			}
			// Init's own counts of the distinct values it decides on: the
			// source's statistics are missing before ANALYZE, and stale
			// after a load.
			measured, err := initmap.MeasureDistinct(cmd.Context(), src, s, &st)
			if err != nil {
				return err
			}
			out := initmap.Generate(s, initmap.Options{Table: name, Statistics: &st, PartitionKeys: keys, Measured: measured})
			if output == "" {
				_, err := a.stdout.Write(out)
				return err
			}
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
			// The hint names --source when it came from the flag: validate
			// without a source checks the file alone (the DSN itself is not
			// printed, it may hold a password).
			check := "remodel validate -m " + output
			if o.source != "" {
				check = "remodel validate --source DSN -m " + output
			}
			fmt.Fprintf(a.stderr, "wrote %s from %s database %s; check it with: %s\n", output, s.Engine, s.Database, check)
			if st.Unavailable != "" {
				fmt.Fprintf(a.stderr, "no access patterns from statement statistics: %s\n", st.Unavailable)
			}
			return nil
		},
	}
	o.sourceFlag(cmd)
	out.register(cmd, "o", []string{"yaml"}, "instead")
	cmd.Flags().Lookup("output-file").Usage = "write the mapping to this file instead of stdout (refused if it exists, unless --force)"
	cmd.Flags().BoolVar(&force, "force", false, "overwrite the --output-file file if it exists")
	cmd.Flags().StringVar(&name, "name", "", "the DynamoDB table's name (default: the database's name)")
	tf.register(cmd)
	return cmd
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
