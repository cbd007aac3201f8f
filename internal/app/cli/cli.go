package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/source"
	_ "github.com/remodel-dev/remodel/internal/domain/source/engines" // the engines source.Open opens
	"github.com/remodel-dev/remodel/mapping"
)

// Version is set at build time with -ldflags "-X .../internal/cli.Version=v1.2.3".
var Version = "dev"

// Run runs remodel with the given arguments and returns the exit status
// (see exit.go). Canceling ctx interrupts the command: main cancels it on
// SIGINT and SIGTERM, and Run (or Main) then returns 130.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&app{stdout: stdout, stderr: stderr}).run(ctx, args, stdin)
}

// Main is Run for the remodel command itself, a process of its own:
// migrate and verify also set its garbage collector's budget (gc.go),
// which tests that run many commands in one process leave alone.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&app{stdout: stdout, stderr: stderr, ownProcess: true}).run(ctx, args, stdin)
}

func (a *app) run(ctx context.Context, args []string, stdin io.Reader) int {
	stdout, stderr := a.stdout, a.stderr
	root := a.root()
	if err := mistypedCommand(root, args); err != nil {
		return exitStatus(ctx, err, stderr)
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return exitStatus(ctx, root.ExecuteContext(ctx), stderr)
}

// mistypedCommand refuses a first argument that is no command before the
// flags are parsed: remodel verfy --source X is an unknown command (and
// the nearest one is suggested), not an unknown flag of remodel itself.
// remodel's own flags (--debug, --help, --version) may come before it.
func mistypedCommand(root *cobra.Command, args []string) error {
	for _, arg := range args {
		switch {
		case arg == "--":
			return nil
		case strings.HasPrefix(arg, "-"):
			name := strings.TrimLeft(strings.SplitN(arg, "=", 2)[0], "-")
			if f := root.PersistentFlags().Lookup(name); f != nil || name == "help" || name == "h" || name == "version" || name == "v" {
				continue // remodel's own flag: the command may follow
			}
			return nil // a command's flag given to remodel: flagError says so
		}
		// The first word: a command, cobra's own (help, completion and
		// its hidden __complete), or a mistake.
		if arg == "help" || arg == "completion" || strings.HasPrefix(arg, "__complete") {
			return nil
		}
		for _, c := range root.Commands() {
			if c.Name() == arg || slices.Contains(c.Aliases, arg) {
				return nil
			}
		}
		return unknownCommand(root, []string{arg})
	}
	return nil
}

// app is what every command shares: the output streams and the root flags.
type app struct {
	stdout, stderr io.Writer
	debug          bool
	ownProcess     bool // Main, not Run: the process is remodel's alone (gc.go)
}

// log is remodel's logger: lines on stderr, debug lines (the AWS SDK's
// included) only with --debug.
func (a *app) log() *slog.Logger {
	level := slog.LevelInfo
	if a.debug {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
}

const exitStatusHelp = `Exit status, the same for every command:
  0    everything passed
  1    checks failed: verify found differences, migrate rejected more rows
       than --max-rejects allows, validate found problems in the mapping
  2    usage error: an unknown command or flag, a bad argument or flag value
  3    could not run: the source or DynamoDB unreachable, the table missing,
       the mapping file unreadable or not matching the source, the table's
       keys not matching the mapping, ...
  130  interrupted (SIGINT or SIGTERM)`

func (a *app) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "remodel",
		Short: "Migrate a relational database into one DynamoDB table, and prove it",
		Long: `remodel moves a PostgreSQL or MySQL/MariaDB database into one Amazon DynamoDB
table by reverse modeling: a mapping file turns every table (an entity) into
items with key templates such as PK = USER#{user_id}, SK = PERSONAL#{service},
and secondary indexes serve the access patterns. remodel previews the items
on real rows, migrates every row with BatchWriteItem, and verifies the table
by counts, item-by-item comparison and every access pattern run against
DynamoDB and against the source. migrate --follow then applies every change
the source commits until stopped (a live cutover; follow-cleanup ends it), and
migrate --to s3://bucket/prefix/ writes the items as objects for DynamoDB's
import from S3 instead (--import starts it; verify --files checks them; a
file:// URL writes them into a local directory). migrate --shard i/n splits a
job among n processes on any machines, and status shows how far each got.

Sources are DSNs: postgres://user:pass@host:5432/db, mysql://user:pass@host:3306/db
or the go-sql-driver form user:pass@tcp(host:3306)/db. --source defaults to
$REMODEL_SOURCE. A source that leaves a connection or a set-up statement
(reading the schema, describing a query, opening the snapshot) unanswered for
--source-timeout (30s) ends the command; reads of rows have no deadline.

DynamoDB (migrate, verify): --profile, --region and --endpoint-url, as in the
AWS CLI; without them the standard AWS chain decides (AWS_PROFILE, AWS_REGION,
AWS_ENDPOINT_URL_DYNAMODB, ~/.aws/config and credentials, SSO, roles). Every
request has --request-timeout (30s) to be answered; unanswered, it is tried
again (3 attempts in all; migrate's writes for --retry-for).

Typical flow:
  remodel introspect --source $DSN
  remodel init       --source $DSN --output-file mapping.yaml
  remodel validate   --source $DSN --mapping mapping.yaml
  remodel preview    --source $DSN --mapping mapping.yaml
  remodel preview    --source $DSN --mapping mapping.yaml --document design.html
  remodel preview    --source $DSN --mapping mapping.yaml --analyze --rate-limit 4000
  remodel migrate    --source $DSN --mapping mapping.yaml --create-table
  remodel verify     --source $DSN --mapping mapping.yaml
  remodel export     --mapping mapping.yaml --output cloudformation --output-file table.json

` + exitStatusHelp,
		Version:       version(),
		Args:          unknownCommand,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("remodel {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.PersistentFlags().BoolVar(&a.debug, "debug", false, "print debug lines on stderr, the AWS SDK's own included (retries, checksum and credential warnings)")
	root.AddCommand(
		a.introspectCmd(),
		a.initCmd(),
		a.validateCmd(),
		a.previewCmd(),
		a.migrateCmd(),
		a.verifyCmd(),
		a.statusCmd(),
		a.followCleanupCmd(),
		a.followBackCmd(),
		a.exportCmd(),
		a.versionCmd(),
	)
	return root
}

// unknownCommand refuses arguments to remodel itself: they are a command
// that does not exist.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	if s := closest(args[0], names); s != "" {
		return usagef("unknown command %q (did you mean %s? see remodel --help)", args[0], s)
	}
	return usagef("unknown command %q (see remodel --help)", args[0])
}

// version is remodel's version and the mapping format it reads.
func version() string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(Version, info)
}

// versionOf is version for the build info (nil: none): the module's
// version when Version is the default "dev" (unless it is only the
// pseudo-version of the commit), and for a build from a
// source tree the commit it was built from (vcs.revision, cut to 12
// characters), its time, and "dirty" when the tree had changes
// (vcs.modified): remodel dev (commit 0123456789ab of
// 2026-11-26T03:28:57Z, dirty; mapping format version 1).
func versionOf(v string, info *debug.BuildInfo) string {
	if info == nil {
		return v + " (mapping format version 1)"
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	// The module's version: a release's tag, or for a source build a
	// pseudo-version made of the commit, which the commit below says
	// better.
	if mv := strings.TrimSuffix(info.Main.Version, "+dirty"); v == "dev" && mv != "" && mv != "(devel)" &&
		(rev == "" || !strings.Contains(mv, rev[:min(len(rev), 12)])) {
		v = mv
	}
	if rev == "" {
		return v + " (mapping format version 1)"
	}
	commit := "commit " + rev[:min(len(rev), 12)]
	if at != "" {
		commit += " of " + at
	}
	if dirty {
		commit += ", dirty"
	}
	return v + " (" + commit + "; mapping format version 1)"
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print remodel's version (also remodel --version)",
		Example: `  remodel version
  remodel --version`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(a.stdout, "remodel %s\n", version())
			return nil
		},
	}
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q (flags start with --; see %s --help)", cmd.Name(), args, cmd.CommandPath())
	}
	return nil
}

// common are the flags every source-reading command shares.
type common struct {
	source  string
	timeout time.Duration
	mapping string
	out     outputFlags // --output: text or json
}

func (c *common) sourceFlag(cmd *cobra.Command) {
	// The default is read in open, not shown here: --help must not print a password.
	cmd.Flags().StringVar(&c.source, "source", "", "source DSN (postgres://…, mysql://… or user:pass@tcp(host:port)/db); default $REMODEL_SOURCE")
	c.timeoutFlag(cmd)
}

// timeoutFlag adds --source-timeout.
func (c *common) timeoutFlag(cmd *cobra.Command) {
	cmd.Flags().DurationVar(&c.timeout, "source-timeout", source.DefaultTimeout, "how long the source may leave a connection (TCP, TLS, authentication) or a set-up statement (reading the schema, describing a query, opening the snapshot) unanswered before the command fails; reads of rows have no deadline (a DSN's connect_timeout or timeout bounds connecting instead)")
}

func (c *common) mappingFlag(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&c.mapping, "mapping", "m", "mapping.yaml", "mapping file")
}

// formatFlag adds --output with the formats result renders in
// (report.Formats: a nil result, text and json); files
// is what --output-file does (outputFlags).
func (c *common) formatFlag(cmd *cobra.Command, files string, result any) {
	var names []string
	for _, f := range report.Formats(result) {
		names = append(names, string(f))
	}
	c.out.register(cmd, "", names, files)
}

// dsn is --source, or $REMODEL_SOURCE without it.
func (c *common) dsn() string {
	if c.source != "" {
		return c.source
	}
	return os.Getenv("REMODEL_SOURCE")
}

var errNoSource = usageError{errors.New("no source: give --source DSN or set REMODEL_SOURCE")}

func (c *common) open(ctx context.Context) (source.Source, error) {
	if err := c.checkTimeout(); err != nil {
		return nil, err
	}
	dsn := c.dsn()
	if dsn == "" {
		return nil, errNoSource
	}
	return source.OpenWith(ctx, dsn, source.Options{Timeout: c.timeout})
}

// checkTimeout refuses a --source-timeout that is not positive.
func (c *common) checkTimeout() error {
	var ch checks
	ch.positive("source-timeout", c.timeout)
	return ch.err()
}

// plan opens the source, inspects it, has it describe the entities'
// queries, and compiles the mapping against it.
func (c *common) plan(ctx context.Context) (*mapping.Plan, source.Source, error) {
	if err := c.checkTimeout(); err != nil {
		return nil, nil, err
	}
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
	f = f.ForEngine(schema.Engine) // its postgres: or mysql: blocks
	if problems, err := describeQueries(ctx, src, f, schema); err != nil || len(problems) > 0 {
		src.Close()
		if err == nil {
			err = problems
		}
		return nil, nil, err
	}
	p, err := mapping.Compile(f, schema)
	if err != nil {
		src.Close()
		return nil, nil, err
	}
	return p, src, nil
}
