package cli

import (
	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/introspect/erd"
)

func (a *app) introspectCmd() *cobra.Command {
	var (
		o                common
		tables, excludes []string
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

--table PATTERN keeps only the tables that match (repeat it for several),
--exclude PATTERN leaves tables out. Patterns are globs (*, ?, [a-z]) matched
against the table's name, or against schema.name when they contain a dot;
case matters.`,
		Example: `  remodel introspect --source $DSN
  remodel introspect --source $DSN --output mermaid --exclude 'tmp_*' > erd.mmd
  remodel introspect --source $DSN --output json --table 'film*' --table actor`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var c checks
			o.out.check(cmd, a.stderr, &c)
			c.tablePatterns(tables, excludes)
			if err := c.err(); err != nil {
				return err
			}
			src, s, err := o.inspectTables(cmd.Context(), tables, excludes)
			if err != nil {
				return err
			}
			defer src.Close()
			switch o.out.out {
			case "json":
				return report.WriteJSON(a.stdout, s)
			case "mermaid":
				return erd.Mermaid(a.stdout, s)
			}
			return erd.Text(a.stdout, s)
		},
	}
	o.sourceFlag(cmd)
	o.out.register(cmd, "", []string{"text", "json", "mermaid"}, "")
	cmd.Flags().StringArrayVar(&tables, "table", nil, "only the tables that match this glob (name, or schema.name with a dot); repeatable")
	cmd.Flags().StringArrayVar(&excludes, "exclude", nil, "leave out the tables that match this glob; repeatable")
	return cmd
}
