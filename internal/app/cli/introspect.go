package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/introspect/erd"
)

func (a *app) introspectCmd() *cobra.Command {
	var (
		o  common
		tf tableFilter
	)
	cmd := &cobra.Command{
		Use:   "introspect",
		Short: "Print the source database's ERD: tables, columns, keys, indexes, relationships",
		Long: `introspect reads the source's ERD: every table with its rows (exact, estimated
or unknown) and size, comment, columns (declared type, the kind remodel
converts it as, nullability, PK/FK/UK markers, comment, enum and set values),
primary key, unique keys, foreign keys, indexes, check constraints and
partitions (a partitioned table's partitions are listed under it).

--output json prints the same as JSON; --output mermaid prints an
entity-relationship diagram (Mermaid erDiagram) whose relationships come from
the foreign keys, with their cardinality from unique keys and nullability.
--output-file [FORMAT=]FILE also writes it to FILE (repeatable; the format
from FORMAT=, else FILE's extension: .json, .mmd, .txt, else --output's).

--include PATTERN keeps only the tables that match (repeat it for several),
--exclude PATTERN leaves tables out. Patterns are globs (*, ?, [a-z]) matched
against the table's name, or against schema.name when they contain a dot;
case matters. (--table PATTERN, the spelling before --include, still works
for one release, with a warning: --table names the DynamoDB table.)`,
		Example: `  remodel introspect --source $DSN
  remodel introspect --source $DSN --output mermaid --exclude 'tmp_*' > erd.mmd
  remodel introspect --source $DSN --output json --include 'film*' --include actor
  remodel introspect --source $DSN --output-file erd.json --output-file mermaid=erd.mmd`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var c checks
			o.out.check(cmd, a.stderr, &c)
			tf.check(cmd, a.stderr, &c)
			var fs files
			o.out.writes(&fs)
			fs.check(&c)
			if err := c.err(); err != nil {
				return err
			}
			src, s, err := o.inspectTables(cmd.Context(), tf.includes, tf.excludes)
			if err != nil {
				return err
			}
			defer src.Close()
			return o.out.writeOutputs(a.stdout, func(w io.Writer, format string) error {
				switch format {
				case "json":
					return report.WriteJSON(w, s)
				case "mermaid":
					return erd.Mermaid(w, s)
				}
				return erd.Text(w, s)
			})
		},
	}
	o.sourceFlag(cmd)
	o.out.register(cmd, "", []string{"text", "json", "mermaid"}, "also")
	tf.register(cmd)
	return cmd
}
