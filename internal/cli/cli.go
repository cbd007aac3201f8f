package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/source"
)

// Version is set at build time with -ldflags "-X .../internal/cli.Version=v1.2.3".
var Version = "dev"

// Exit statuses.
const (
	exitOK     = 0
	exitFailed = 1 // the command ran and found a problem (verify failed, rows rejected over the limit, ...)
	exitUsage  = 2 // bad flags or arguments
)

// usageError marks errors in how the command was called.
type usageError struct{ error }

// failedError marks a command that ran to the end and reports failure
// (its report is already printed).
var errFailed = errors.New("failed")

// Run runs remodel with the given arguments and returns the exit status.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFailed):
		return exitFailed
	}
	fmt.Fprintf(stderr, "remodel: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailed
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "remodel",
		Short: "Migrate a relational database into one DynamoDB table, and prove it",
		Long: `remodel moves a PostgreSQL or MySQL/MariaDB database into one Amazon DynamoDB
table by reverse modeling: a mapping file turns every table (an entity) into
items with key templates such as PK = USER#{user_id}, SK = PERSONAL#{service},
and secondary indexes serve the access patterns. remodel previews the items
on real rows, migrates every row with BatchWriteItem, and verifies the table
by counts, item-by-item comparison and every access pattern run against
DynamoDB and against the source.

Sources are DSNs: postgres://user:pass@host:5432/db, mysql://user:pass@host:3306/db
or the go-sql-driver form user:pass@tcp(host:3306)/db. --source defaults to
$REMODEL_SOURCE. DynamoDB's endpoint comes from --endpoint or the standard
AWS_ENDPOINT_URL_DYNAMODB; region and credentials from the standard AWS chain.

Typical flow:
  remodel introspect --source $DSN
  remodel validate   --source $DSN --mapping mapping.yaml
  remodel preview    --source $DSN --mapping mapping.yaml
  remodel migrate    --source $DSN --mapping mapping.yaml --create-table
  remodel verify     --source $DSN --mapping mapping.yaml`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see remodel %s --help)", err, c.Name())}
	})
	root.AddCommand(
		introspectCmd(stdout),
		validateCmd(stdout),
		previewCmd(stdout),
		migrateCmd(stdout, stderr),
		verifyCmd(stdout),
		versionCmd(stdout),
	)
	return root
}

func versionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print remodel's version",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := Version
			if info, ok := debug.ReadBuildInfo(); ok && v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
				v = info.Main.Version
			}
			fmt.Fprintf(stdout, "remodel %s (mapping format version 1)\n", v)
			return nil
		},
	}
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("%s takes no arguments, got %q (flags start with --)", cmd.Name(), args)}
	}
	return nil
}

// common are the flags every source-reading command shares.
type common struct {
	source  string
	mapping string
	format  string
}

func (c *common) sourceFlag(cmd *cobra.Command) {
	// The default is read in open, not shown here: --help must not print a password.
	cmd.Flags().StringVar(&c.source, "source", "", "source DSN (postgres://…, mysql://… or user:pass@tcp(host:port)/db); default $REMODEL_SOURCE")
}

func (c *common) mappingFlag(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&c.mapping, "mapping", "m", "mapping.yaml", "mapping file")
}

func (c *common) formatFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.format, "format", "text", "output format: text or json")
}

func (c *common) checkFormat() error {
	if c.format != "text" && c.format != "json" {
		return usageError{fmt.Errorf("--format must be text or json, got %q", c.format)}
	}
	return nil
}

// dsn is --source, or $REMODEL_SOURCE without it.
func (c *common) dsn() string {
	if c.source != "" {
		return c.source
	}
	return os.Getenv("REMODEL_SOURCE")
}

func (c *common) open(ctx context.Context) (source.Source, error) {
	dsn := c.dsn()
	if dsn == "" {
		return nil, usageError{errors.New("no source: give --source DSN or set REMODEL_SOURCE")}
	}
	return source.Open(ctx, dsn)
}

// plan opens the source, inspects it and compiles the mapping against it.
func (c *common) plan(ctx context.Context) (*mapping.Plan, source.Source, error) {
	f, err := mapping.ParseFile(c.mapping)
	if err != nil {
		return nil, nil, err
	}
	src, err := c.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	schema, err := src.Inspect(ctx)
	if err != nil {
		src.Close()
		return nil, nil, err
	}
	p, err := mapping.Compile(f, schema)
	if err != nil {
		src.Close()
		return nil, nil, err
	}
	return p, src, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
