package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/domain/export"
	"github.com/remodel-dev/remodel/internal/domain/mapping"
	"github.com/remodel-dev/remodel/internal/domain/preview"
)

func (a *app) exportCmd() *cobra.Command {
	var o common
	var out outputFlags
	var table string
	var rows int
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the mapping's table as a NoSQL Workbench model, a CloudFormation template or Terraform",
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

cloudformation and terraform need no source: without --source (or
$REMODEL_SOURCE) the mapping file is checked on its own, as validate does;
with one it is also checked against the source. The result goes to stdout,
or to the file --output-file names.`,
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
			opts := export.Options{TableName: table, MappingFile: filepath.Base(o.mapping)}
			var b bytes.Buffer
			if format == "workbench" || o.dsn() != "" {
				p, src, err := o.plan(cmd.Context())
				if err != nil {
					return err
				}
				defer src.Close()
				switch format {
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
	out.register(cmd, "o", []string{"", "workbench", "cloudformation", "terraform"}, "instead")
	f.StringVar(&table, "table", "", "DynamoDB table name (default: table.name of the mapping)")
	f.IntVar(&rows, "rows", 3, "workbench: rows per entity to take as sample items")
	return cmd
}
