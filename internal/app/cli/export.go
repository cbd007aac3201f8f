package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/domain/export"
	"github.com/remodel-dev/remodel/internal/domain/mapping"
	"github.com/remodel-dev/remodel/internal/domain/preview"
)

// libraryExports are the exports for applications' data libraries: each
// writes the plan and returns what it could not express.
var libraryExports = map[string]func(io.Writer, *mapping.Plan, export.Options) ([]string, error){
	"electrodb":    export.ElectroDB,
	"onetable":     export.OneTable,
	"dynamodb-mcp": export.DynamoDBMCP,
}

func (a *app) exportCmd() *cobra.Command {
	var o common
	var out outputFlags
	var table string
	var rows int
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
			var c checks
			out.check(cmd, a.stderr, &c)
			format, output := out.out, out.file()
			c.atLeast("rows", int64(rows), 1)
			exportFiles(&o, &out).check(&c)
			if err := c.err(); err != nil {
				return err
			}
			if format == "workbench" && o.dsn() == "" {
				return usagef("no source: --output workbench takes its sample items from the source's rows: give --source DSN or set REMODEL_SOURCE (cloudformation and terraform need none)")
			}
			library := libraryExports[format]
			if library != nil && o.dsn() == "" {
				return usagef("no source: --output %s takes the attributes' types from the source's columns: give --source DSN or set REMODEL_SOURCE (cloudformation and terraform need none)", format)
			}
			opts := export.Options{TableName: table, MappingFile: filepath.Base(o.mapping)}
			var b bytes.Buffer
			if format == "workbench" || library != nil || o.dsn() != "" {
				p, src, err := o.plan(cmd.Context())
				if err != nil {
					return err
				}
				defer src.Close()
				switch format {
				case "electrodb", "onetable", "dynamodb-mcp":
					notes, err := library(&b, p, opts)
					if err != nil {
						return err
					}
					for _, n := range notes {
						fmt.Fprintf(a.stderr, "remodel: export --output %s: not expressed: %s\n", format, n)
					}
				case "workbench":
					res, err := preview.Run(cmd.Context(), p, src, rows, nil, nil)
					if err != nil {
						return err
					}
					if err := export.Workbench(&b, p, res, export.WorkbenchOptions{Options: opts, Now: time.Now()}); err != nil {
						return err
					}
				case "cloudformation":
					if err := export.CloudFormation(&b, &p.Table, opts); err != nil {
						return err
					}
				case "terraform":
					if err := export.Terraform(&b, &p.Table, opts); err != nil {
						return err
					}
				}
			} else {
				f, err := mapping.ParseFile(o.mapping)
				if err != nil {
					return err
				}
				t, err := mapping.TableOf(f)
				if err != nil {
					return err
				}
				render := export.CloudFormation
				if format == "terraform" {
					render = export.Terraform
				}
				if err := render(&b, t, opts); err != nil {
					return err
				}
			}
			if output == "" || output == "-" {
				_, err := a.stdout.Write(b.Bytes())
				return err
			}
			if err := os.WriteFile(output, b.Bytes(), 0o644); err != nil {
				return fmt.Errorf("export: %w", err)
			}
			fmt.Fprintf(a.stdout, "wrote %s (%s)\n", output, format)
			return nil
		},
	}
	o.sourceFlag(cmd)
	o.mappingFlag(cmd)
	f := cmd.Flags()
	out.register(cmd, "o", []string{"", "workbench", "cloudformation", "terraform", "electrodb", "onetable", "dynamodb-mcp"}, "instead")
	f.StringVar(&table, "table", "", "DynamoDB table name (default: table.name of the mapping)")
	f.IntVar(&rows, "rows", 3, "workbench: rows per entity to take as sample items")
	return cmd
}
