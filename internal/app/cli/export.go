package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/domain/export"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/mapping"
)

// libraryExports are the exports for applications' data libraries: each
// writes the plan and returns what it could not express.
var libraryExports = map[string]func(io.Writer, *mapping.Plan, export.Options) ([]string, error){
	"electrodb":    export.ElectroDB,
	"onetable":     export.OneTable,
	"dynamodb-mcp": export.DynamoDBMCP,
}

// exportFlags are export's flags.
type exportFlags struct {
	o     common
	out   outputFlags
	table string
	rows  int
}

func (a *app) exportCmd() *cobra.Command {
	f := &exportFlags{}
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the mapping as a NoSQL Workbench model, CloudFormation, Terraform, or the schema of an application's data library",
		Long: `export writes the DynamoDB design of a mapping in another tool's format:

  --output cloudformation   a template (JSON) with one AWS::DynamoDB::Table:
                            keys, attribute definitions, global and local
                            indexes, billing and TTL, as migrate --create-table
                            makes the table
  --output terraform        an aws_dynamodb_table resource (HCL) with the same
                            (no multi-attribute index keys)
  --output workbench        a NoSQL Workbench data model (JSON, format 3.0):
                            the table, its global indexes, every entity's
                            attributes, one facet per access pattern on the
                            table, and the items of the first --rows rows of
                            each entity as sample data (needs the source; no
                            local indexes or multi-attribute keys)
  --output electrodb        a TypeScript module for ElectroDB 3: one Entity
                            per entity (key templates with casing "none"), a
                            Service over them, one function per access pattern
  --output onetable         a OneTable schema (JSON, format onetable:1.1.0):
                            models with value templates, indexes, and the
                            access patterns as queries
  --output dynamodb-mcp     the schema.json of AWS's DynamoDB MCP server
                            (its data-access-layer generator): table, GSIs,
                            entities with pk_template/sk_template, fields and
                            access patterns

electrodb, onetable and dynamodb-mcp need the source (the columns' types). What
a library cannot express as remodel writes it (a formatter it has no equivalent
for, an embed's rows, a conditional key, ...) is left out and named: in the
output, and on stderr, one line each.

cloudformation and terraform need no source: without --source (or
$REMODEL_SOURCE) the mapping file is checked on its own, as validate does;
with one it is also checked against the source. The result goes to stdout,
or to the file --output-file names.`,
		Example: `  remodel export -m mapping.yaml --output cloudformation --output-file table.json
  remodel export -m mapping.yaml --output terraform --output-file table.tf
  remodel export --source $DSN -m mapping.yaml --output workbench --output-file model.json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := f.check(cmd, a)
			if err != nil {
				return err
			}
			var b bytes.Buffer
			if err := a.exportTo(cmd.Context(), &b, f, format); err != nil {
				return err
			}
			return a.writeExport(b.Bytes(), f.out.file(), format)
		},
	}
	f.o.sourceFlag(cmd)
	f.o.mappingFlag(cmd)
	f.out.register(cmd, "o", []string{"", "workbench", "cloudformation", "terraform", "electrodb", "onetable", "dynamodb-mcp"}, "instead")
	cmd.Flags().StringVar(&f.table, "table", "", "DynamoDB table name (default: table.name of the mapping)")
	cmd.Flags().IntVar(&f.rows, "rows", 3, "workbench: rows per entity to take as sample items")
	return cmd
}

// check checks export's flags and returns the format asked for: the
// formats that read the source's rows or columns need a source.
func (f *exportFlags) check(cmd *cobra.Command, a *app) (string, error) {
	var c checks
	f.out.check(cmd, a.stderr, &c)
	format := f.out.out
	c.atLeast("rows", int64(f.rows), 1)
	exportFiles(&f.o, &f.out).check(&c)
	if err := c.err(); err != nil {
		return "", err
	}
	if format == "workbench" && f.o.dsn() == "" {
		return "", usagef("no source: --output workbench takes its sample items from the source's rows: give --source DSN or set REMODEL_SOURCE (cloudformation and terraform need none)")
	}
	if libraryExports[format] != nil && f.o.dsn() == "" {
		return "", usagef("no source: --output %s takes the attributes' types from the source's columns: give --source DSN or set REMODEL_SOURCE (cloudformation and terraform need none)", format)
	}
	return format, nil
}

// exportTo writes the mapping in format to b: from the plan checked
// against the source when there is one (which workbench and the data
// libraries need), else from the mapping file on its own.
func (a *app) exportTo(ctx context.Context, b *bytes.Buffer, f *exportFlags, format string) error {
	opts := export.Options{TableName: f.table, MappingFile: filepath.Base(f.o.mapping)}
	library := libraryExports[format]
	if format != "workbench" && library == nil && f.o.dsn() == "" {
		return exportTable(b, f.o.mapping, format, opts)
	}
	p, src, err := f.o.plan(ctx)
	if err != nil {
		return err
	}
	defer src.Close()
	switch {
	case library != nil:
		notes, err := library(b, p, opts)
		for _, n := range notes {
			fmt.Fprintf(a.stderr, "remodel: export --output %s: not expressed: %s\n", format, n)
		}
		if err != nil {
			return fmt.Errorf("export --output %s: %w", format, err)
		}
		return nil
	case format == "workbench":
		res, err := preview.Run(ctx, p, src, f.rows, nil, nil)
		if err != nil {
			return err
		}
		return export.Workbench(b, p, res, export.WorkbenchOptions{Options: opts, Now: time.Now()})
	case format == "terraform":
		return export.Terraform(b, &p.Table, opts)
	default:
		return export.CloudFormation(b, &p.Table, opts)
	}
}

// exportTable writes the table of the mapping file at path, checked on
// its own as validate does, as CloudFormation or Terraform.
func exportTable(b *bytes.Buffer, path, format string, opts export.Options) error {
	mf, err := mapping.ParseFile(path)
	if err != nil {
		return err
	}
	t, err := mapping.TableOf(mf)
	if err != nil {
		return err
	}
	if format == "terraform" {
		return export.Terraform(b, t, opts)
	}
	return export.CloudFormation(b, t, opts)
}

// writeExport writes what export made to stdout, or to the file output
// names, saying so.
func (a *app) writeExport(b []byte, output, format string) error {
	if output == "" || output == "-" {
		_, err := a.stdout.Write(b)
		return err
	}
	if err := os.WriteFile(output, b, 0o644); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(a.stdout, "wrote %s (%s)\n", output, format)
	return nil
}
