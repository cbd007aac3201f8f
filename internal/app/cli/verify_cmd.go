package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/verify"
)

// verifyFlags are verify's flags as the command line sets them: the
// check's options (v) and the ones read into them by run.
type verifyFlags struct {
	o                 common
	d                 dynamoFlags
	v                 verify.Options
	rejects, filesURL string
	prog              progressFlags
}

func (a *app) verifyCmd() *cobra.Command {
	f := &verifyFlags{}
	cmd := &cobra.Command{
		Use:     "verify",
		Short:   "Prove the DynamoDB table matches the source: counts, items and access patterns",
		Long:    verifyLong,
		Example: verifyExamples,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.tuneGC(verifyMemoryLimit)
			if err := f.check(cmd, a); err != nil {
				return err
			}
			return a.runVerify(cmd, f)
		},
	}
	f.register(cmd)
	return cmd
}

// check refuses flags out of their range, naming every problem at once,
// and the files verify would read or write wrongly.
func (f *verifyFlags) check(cmd *cobra.Command, a *app) error {
	v := &f.v
	var c checks
	f.o.out.check(cmd, a.stderr, &c)
	c.atLeast("samples", int64(v.Samples), 1)
	c.atLeast("readers", int64(v.Readers), 1)
	c.atLeast("max-problems", int64(v.MaxProblems), 0)
	c.positive("gsi-settle", v.Settle)
	if !(v.SampleRate > 0 && v.SampleRate <= 1) {
		c = append(c, fmt.Sprintf("--sample-rate must be more than 0 and at most 1, got %v", v.SampleRate))
	}
	f.d.check(&c)
	f.prog.check(&c)
	if err := c.err(); err != nil {
		return err
	}
	return verifyFiles(&f.o, f.rejects).err()
}

// runVerify opens the source and the table (or the objects of --files),
// runs the checks and reports them.
func (a *app) runVerify(cmd *cobra.Command, f *verifyFlags) error {
	v := &f.v
	var filesLoc *s3out.Location
	if f.filesURL != "" {
		loc, err := s3out.Parse(f.filesURL)
		if err != nil {
			return usageError{fmt.Errorf("--files: %w", err)}
		}
		filesLoc = &loc
	}
	if !cmd.Flags().Changed("seed") {
		v.Seed = rand.Int64N(1 << 31)
	}
	out := verifyReporter{a: a, ctx: cmd.Context(), o: &f.o}
	p, src, db, err := a.openVerify(cmd.Context(), f, filesLoc)
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			return err
		}
		return out.failed(err, f)
	}
	defer src.Close()
	if f.rejects != "" {
		if v.Rejects, err = verify.ReadRejects(f.rejects, p); err != nil {
			return usageError{err}
		}
	}
	v.Plan, v.Source, v.DB, v.Table = p, src, db, f.d.table
	tracker, stopProgress, err := f.prog.start(a, "verify")
	if err != nil {
		return err
	}
	v.Progress = tracker
	rep, err := verify.Run(cmd.Context(), *v)
	stopProgress()
	return out.write(rep, err)
}

// openVerify compiles the mapping against the source and connects to
// DynamoDB, or, with --files, to the objects' store (no table).
func (a *app) openVerify(ctx context.Context, f *verifyFlags, filesLoc *s3out.Location) (*mapping.Plan, source.Source, *dynamo.Client, error) {
	if filesLoc == nil {
		return f.d.plan(ctx, a, &f.o)
	}
	var err error
	if f.v.S3, err = connectStore(ctx, a, &f.d, *filesLoc); err != nil {
		return nil, nil, nil, err
	}
	if b, rerr := os.ReadFile(f.o.mapping); rerr == nil {
		sum := sha256.Sum256(b)
		f.v.MappingDigest = hex.EncodeToString(sum[:])
	}
	f.v.Files = filesLoc
	p, src, err := f.o.plan(ctx)
	return p, src, nil, err
}

// verifyReporter writes verify's report to stdout and to every
// --output-file, and says how the command ends.
type verifyReporter struct {
	a   *app
	ctx context.Context
	o   *common
}

// write writes rep; runErr (verify could not finish) wins over a write
// error, which wins over failed checks.
func (r verifyReporter) write(rep *verify.Report, runErr error) error {
	if runErr != nil && r.ctx.Err() != nil {
		// A signal, not the check: "context canceled" would not tell
		// the report's reader.
		rep.Interrupted = true
		rep.Error = "interrupted"
		if cause := context.Cause(r.ctx); cause != nil && cause != context.Canceled {
			rep.Error += " (" + cause.Error() + ")"
		}
	}
	werr := report.Write(r.a.stdout, report.Format(r.o.out.out), rep)
	for _, of := range r.o.out.toFiles {
		if err := writeReportFile(of, rep); err != nil && werr == nil {
			werr = err
		}
	}
	switch {
	case runErr != nil:
		return runErr
	case werr != nil:
		return werr
	case !rep.OK:
		failed, total := rep.FailedChecks()
		return failedError{fmt.Errorf("verify: %d of %d checks failed (the report names them)", failed, total)}
	}
	return nil
}

// failed reports a check that could not start. Without --table the report
// names the mapping's table, read from the file alone: the source may be
// what failed.
func (r verifyReporter) failed(err error, f *verifyFlags) error {
	table := f.d.table
	if mf, perr := mapping.ParseFile(f.o.mapping); table == "" && perr == nil {
		table = mf.Table.Name.Value
	}
	return r.write(&verify.Report{Version: verify.ReportVersion, Table: table, Seed: f.v.Seed, Error: err.Error()}, err)
}

func (f *verifyFlags) register(cmd *cobra.Command) {
	f.o.sourceFlag(cmd)
	f.o.mappingFlag(cmd)
	f.o.formatFlag(cmd, "also", &verify.Report{})
	f.d.register(cmd)
	v := &f.v
	fl := cmd.Flags()
	fl.StringVar(&f.rejects, "rejects", "", "migrate's rejected-rows file: its rows are expected to have no item")
	fl.StringVar(&f.filesURL, "files", "", "check migrate --to's ImportTable objects under this S3 prefix, s3://bucket/prefix/ (or local directory, file:///abs/dir/prefix/), and their manifest, instead of a table (access patterns: not checked)")
	fl.IntVar(&v.Samples, "samples", 10, "parameter sets to check each access pattern with")
	fl.Int64Var(&v.Seed, "seed", 0, "fixes which parameter values are sampled (default: drawn at random and printed)")
	fl.IntVar(&v.MaxProblems, "max-problems", 20, "problems listed per check, all are counted (0 lists all)")
	fl.BoolVar(&v.SkipItems, "skip-items", false, "leave out the item-by-item comparison")
	fl.IntVar(&v.Readers, "readers", 4, "entities the item check reads at once, each on a source connection of its own (one more per embed), beside the table scan and the access patterns")
	fl.Float64Var(&v.SampleRate, "sample-rate", 1, "share of each entity's rows the item check compares (0 < F <= 1), chosen by a hash of each row's key: every run compares the same rows")
	fl.DurationVar(&v.Settle, "gsi-settle", 10*time.Second, "how long after the start a global index's Query is repeated while it disagrees with the SQL (GSIs are eventually consistent)")
	f.prog.register(cmd, false)
}
