package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/dynamo"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/preview"
	"github.com/remodel-dev/remodel/source"
	"github.com/remodel-dev/remodel/verify"
)

func introspectCmd(stdout io.Writer) *cobra.Command {
	var o common
	cmd := &cobra.Command{
		Use:   "introspect",
		Short: "Print the source database's tables, columns, keys and foreign keys",
		Long: `introspect reads the source's ERD: every table with its columns (declared type,
the kind remodel converts it as, nullability), primary key, foreign keys and
row estimate. --format json prints the same as JSON.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.checkFormat(); err != nil {
				return err
			}
			src, err := o.open(cmd.Context())
			if err != nil {
				return err
			}
			defer src.Close()
			s, err := src.Inspect(cmd.Context())
			if err != nil {
				return err
			}
			if o.format == "json" {
				return writeJSON(stdout, s)
			}
			writeSchema(stdout, s)
			return nil
		},
	}
	o.sourceFlag(cmd)
	o.formatFlag(cmd)
	return cmd
}

func writeSchema(w io.Writer, s *introspect.Schema) {
	fmt.Fprintf(w, "database %s (%s), %d tables\n", s.Database, s.Engine, len(s.Tables))
	for _, t := range s.Tables {
		fmt.Fprintf(w, "\ntable %s (about %d rows)\n", t.QualifiedName(), t.RowEstimate)
		pk := map[string]bool{}
		for _, c := range t.PrimaryKey {
			pk[c] = true
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, c := range t.Columns {
			null := "null"
			if !c.Nullable {
				null = "not null"
			}
			kind := string(c.Kind)
			if c.Kind == introspect.KindArray {
				kind += " of " + string(c.Elem)
			}
			key := ""
			if pk[c.Name] {
				key = "PK"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", c.Name, c.Type, kind, null, key)
		}
		tw.Flush()
		if len(t.PrimaryKey) > 0 {
			fmt.Fprintf(w, "  primary key (%s)\n", strings.Join(t.PrimaryKey, ", "))
		}
		for _, fk := range t.ForeignKeys {
			fmt.Fprintf(w, "  foreign key %s (%s) references %s.%s (%s)\n", fk.Name, strings.Join(fk.Columns, ", "), fk.RefSchema, fk.RefTable, strings.Join(fk.RefColumns, ", "))
		}
	}
}

func validateCmd(stdout io.Writer) *cobra.Command {
	var o common
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check a mapping file, against the source schema when --source is given",
		Long: `validate parses the mapping file strictly (unknown fields are errors) and, with
--source, checks every table, column, template, index and access pattern
against the source schema. Every problem is printed as file:line:col: path: message.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := mapping.ParseFile(o.mapping)
			if err != nil {
				return err
			}
			if o.dsn() == "" {
				fmt.Fprintf(stdout, "%s: the file is well-formed (%d entities, %d access patterns); give --source to check it against the database\n", o.mapping, len(f.Entities), len(f.AccessPatterns))
				return nil
			}
			p, src, err := o.plan(cmd.Context())
			if err != nil {
				return err
			}
			src.Close()
			fmt.Fprintf(stdout, "%s: valid against %s database %s (%d entities, %d access patterns)\n", o.mapping, p.Schema.Engine, p.Schema.Database, len(p.Entities), len(p.AccessPatterns))
			return nil
		},
	}
	o.sourceFlag(cmd)
	o.mappingFlag(cmd)
	return cmd
}

func previewCmd(stdout io.Writer) *cobra.Command {
	var o common
	var rows int
	var entities []string
	cmd := &cobra.Command{
		Use:   "preview",
		Short: "Show the items the first rows of every entity become, without touching DynamoDB",
		Long: `preview renders the first --rows rows (in primary-key order) of every entity
through the mapping and prints the table definition, each entity's key
patterns and its items in DynamoDB JSON, and rows that would be rejected with
the reason. Nothing is written anywhere.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.checkFormat(); err != nil {
				return err
			}
			if rows < 1 {
				return usageError{fmt.Errorf("--rows must be at least 1, got %d", rows)}
			}
			p, src, err := o.plan(cmd.Context())
			if err != nil {
				return err
			}
			defer src.Close()
			res, err := preview.Run(cmd.Context(), p, src, rows, entities)
			if err != nil {
				return err
			}
			if o.format == "json" {
				return writeJSON(stdout, res)
			}
			res.WriteText(stdout)
			return nil
		},
	}
	o.sourceFlag(cmd)
	o.mappingFlag(cmd)
	o.formatFlag(cmd)
	cmd.Flags().IntVar(&rows, "rows", 3, "rows to render per entity")
	cmd.Flags().StringSliceVar(&entities, "entity", nil, "preview only these entities (repeat or comma-separate)")
	return cmd
}

// dynamoFlags are the flags of commands that talk to DynamoDB.
type dynamoFlags struct {
	endpoint string
	table    string
}

func (d *dynamoFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&d.endpoint, "endpoint", "", "DynamoDB endpoint URL, e.g. http://127.0.0.1:8000 for DynamoDB Local (default: the AWS chain, AWS_ENDPOINT_URL_DYNAMODB)")
	cmd.Flags().StringVar(&d.table, "table", "", "DynamoDB table name (default: table.name of the mapping)")
}

// plan compiles the mapping against the source and sets up the DynamoDB
// client; the caller closes the source.
func (d *dynamoFlags) plan(ctx context.Context, o *common) (*mapping.Plan, source.Source, *dynamodb.Client, error) {
	p, src, err := o.plan(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	db, err := dynamo.New(ctx, d.endpoint)
	if err != nil {
		src.Close()
		return nil, nil, nil, err
	}
	return p, src, db, nil
}

func migrateCmd(stdout, stderr io.Writer) *cobra.Command {
	var o common
	var d dynamoFlags
	var m migrate.Options
	var retryFor time.Duration
	var reportJSON string
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Write every source row into the DynamoDB table",
		Long: `migrate reads every entity from one consistent snapshot of the source, renders
each row into its item, and writes the items with BatchWriteItem (25 per
request) from a fixed pool of writers. UnprocessedItems, throttling and 5xx
answers are retried with capped exponential backoff and jitter for up to
--retry-for per batch; after that the run stops and names the items.

A row that cannot become an item (a NULL in a key, an item over 400 KB, two
rows with the same key in one batch, ...) is rejected: it is written to
--rejects with its entity, source key and reason. More than --max-rejects
rejected rows stop the run (the default 0 stops at the first).

migrate refuses to write into a table that already holds items unless
--allow-non-empty is given. It prints progress to stderr and a summary to
stdout; the exit status is 0 only if every row was written or, within
--max-rejects, rejected.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.checkFormat(); err != nil {
				return err
			}
			if m.Writers < 1 || m.Readers < 1 || m.MaxRejects < 0 {
				return usageError{fmt.Errorf("--writers and --readers must be at least 1 and --max-rejects at least 0")}
			}
			p, src, db, err := d.plan(cmd.Context(), &o)
			if err != nil {
				return err
			}
			defer src.Close()
			m.Plan, m.Source, m.DB, m.Table = p, src, db, d.table
			m.Backoff = migrate.DefaultBackoff
			m.Backoff.Deadline = retryFor
			m.Progress = stderr
			rep, runErr := migrate.Run(cmd.Context(), m)
			if reportJSON != "" {
				if err := writeJSONFile(reportJSON, rep); err != nil && runErr == nil {
					runErr = err
				}
			}
			if rep.RowsRead > 0 || runErr == nil {
				if o.format == "json" {
					if err := writeJSON(stdout, rep); err != nil {
						return err
					}
				} else {
					rep.WriteText(stdout)
				}
			}
			return runErr
		},
	}
	o.sourceFlag(cmd)
	o.mappingFlag(cmd)
	o.formatFlag(cmd)
	d.register(cmd)
	f := cmd.Flags()
	f.BoolVar(&m.CreateTable, "create-table", false, "create the table with its indexes and wait until it is ACTIVE")
	f.BoolVar(&m.AllowNonEmpty, "allow-non-empty", false, "write into a table that already holds items (items with the same key are replaced)")
	f.IntVar(&m.Writers, "writers", 8, "concurrent BatchWriteItem writers")
	f.IntVar(&m.Readers, "readers", 4, "source connections reading entities in parallel")
	f.Int64Var(&m.MaxRejects, "max-rejects", 0, "rejected rows allowed before the run stops")
	f.StringVar(&m.RejectsPath, "rejects", "remodel-rejects.jsonl", "file that receives every rejected row as a JSON line (created only if a row is rejected)")
	f.DurationVar(&retryFor, "retry-for", migrate.DefaultBackoff.Deadline, "how long to keep retrying one batch before the run fails")
	f.StringVar(&reportJSON, "report-json", "", "also write the final report as JSON to this file")
	return cmd
}

func verifyCmd(stdout io.Writer) *cobra.Command {
	var o common
	var d dynamoFlags
	var v verify.Options
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Prove the DynamoDB table matches the source: counts, items and access patterns",
		Long: `verify checks a migrated table against the source, read from one snapshot:

  counts           source rows per entity (same where) = items per entity in the table,
                   and no item that belongs to no entity
  items            every row (or a --sample-rate share) rendered and compared attribute
                   by attribute with the stored item, and every column attribute
                   compared with the source's own JSON rendering of the row (missing
                   and different items are named by key)
  access patterns  for --samples parameter values sampled from the source, the
                   Query (every page) returns exactly the items of the rows its SQL
                   returns; parameters are bound, never pasted into the SQL

The exit status is 0 only when everything passed.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.checkFormat(); err != nil {
				return err
			}
			if !(v.SampleRate > 0 && v.SampleRate <= 1) {
				return usageError{fmt.Errorf("--sample-rate must be more than 0 and at most 1, got %v", v.SampleRate)}
			}
			p, src, db, err := d.plan(cmd.Context(), &o)
			if err != nil {
				return err
			}
			defer src.Close()
			v.Plan, v.Source, v.DB, v.Table = p, src, db, d.table
			rep, err := verify.Run(cmd.Context(), v)
			if err != nil {
				return err
			}
			if o.format == "json" {
				if err := writeJSON(stdout, rep); err != nil {
					return err
				}
			} else {
				rep.WriteText(stdout)
			}
			if !rep.OK {
				return errFailed
			}
			return nil
		},
	}
	o.sourceFlag(cmd)
	o.mappingFlag(cmd)
	o.formatFlag(cmd)
	d.register(cmd)
	cmd.Flags().IntVar(&v.Samples, "samples", 10, "parameter sets to check each access pattern with")
	cmd.Flags().BoolVar(&v.SkipItems, "skip-items", false, "leave out the item-by-item comparison")
	cmd.Flags().Float64Var(&v.SampleRate, "sample-rate", 1, "share of each entity's rows the item check compares (0 < F <= 1), chosen by a hash of each row's key: every run compares the same rows")
	cmd.Flags().DurationVar(&v.Settle, "gsi-settle", 10*time.Second, "how long after the start a global index's Query is repeated while it disagrees with the SQL (GSIs are eventually consistent)")
	return cmd
}

func writeJSONFile(path string, v any) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if err := writeJSON(f, v); err != nil {
		f.Close()
		return fmt.Errorf("writing report %s: %w", path, err)
	}
	return f.Close()
}
