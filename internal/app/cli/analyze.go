package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/domain/pricing"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// analyzeFlags are preview's flags for the analysis over all rows.
type analyzeFlags struct {
	on        bool
	sample    float64
	rateLimit int64
	readers   int
	prices    string
	traffic   string
}

const analyzeHelp = `

With --analyze, preview reads every row of every entity instead (from one
consistent snapshot, or a fixed share of them with --sample), renders each
as migrate does, and reports: the rows migrate would reject, by entity and
reason, with example keys; the item size distribution (p50, p99, max)
against DynamoDB's 400 KB; per table and index its items, stored bytes,
write units, write amplification (an index's writes per write into the
table), partitions and those that stand out by items, bytes and write
units (with the entities they hold), and what the busiest receives during a load at --rate-limit (against the
1000 write units a second one partition takes); the item collections
against 10 GB when the table has a local index; warnings about the data (a
hot partition, a long run of one partition key in the read order, a
constant or low-cardinality partition key, items near 400 KB, collections
near 10 GB); totals of write units and stored bytes (with DynamoDB's 100
bytes per item, table and indexes); and the cost of the load (on-demand,
provisioned at --rate-limit, S3 import) and of a month of storage
(Standard, Standard-IA) from a price table (built in: us-east-1, with its
date and source; --prices FILE for another); with --traffic FILE, a month
of the access patterns' queries at the rates it gives. docs/cli.md
describes every figure. Its progress goes to stderr as --progress says: a
task per entity, its rows read of the source's estimate, percent and ETA.`

func (f *analyzeFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVar(&f.on, "analyze", false, "analyse every row: rejects, sizes, partitions, indexes, warnings and cost (see above)")
	fs.Float64Var(&f.sample, "sample", 1, "with --analyze: the share of each entity's rows to analyse (more than 0, at most 1), the same rows every run")
	fs.Int64Var(&f.rateLimit, "rate-limit", 0, "with --analyze: the load's rate, write units per second into the table, as migrate --rate-limit (0: not given; the provisioned cost then assumes 1000)")
	fs.IntVar(&f.readers, "readers", 4, "with --analyze: source connections reading entities in parallel")
	fs.StringVar(&f.traffic, "traffic", "", "with --analyze: a YAML file of access pattern rates to price a month of their queries ({name: {per_second: N, items: M}}; items: estimated when left out)")
	fs.StringVar(&f.prices, "prices", "", "with --analyze: a price table file in the shape of the built-in one (default: the built-in us-east-1 table)")
}

// check adds the problems with the analysis flags to c.
func (f *analyzeFlags) check(cmd *cobra.Command, c *checks) {
	if !f.on {
		for _, name := range []string{"sample", "rate-limit", "readers", "prices", "traffic"} {
			if cmd.Flags().Changed(name) {
				*c = append(*c, "--"+name+" is a flag of the analysis: give --analyze too")
			}
		}
		return
	}
	for _, name := range []string{"rows", "entity"} {
		if cmd.Flags().Changed(name) && !cmd.Flags().Changed("document") {
			*c = append(*c, "--"+name+" is for the item preview; --analyze reads every entity's rows (--sample takes a share of them)")
		}
	}
	if !(f.sample > 0 && f.sample <= 1) || math.IsNaN(f.sample) {
		*c = append(*c, fmt.Sprintf("--sample must be more than 0 and at most 1, got %v", f.sample))
	}
	c.atLeast("rate-limit", f.rateLimit, 0)
	c.atLeast("readers", int64(f.readers), 1)
}

// runAnalyze runs the analysis and prints its report.
func (a *app) runAnalyze(ctx context.Context, f *analyzeFlags, prog *progressFlags, out *outputFlags, p *mapping.Plan, src source.Source) error {
	rep, err := a.analyze(ctx, f, prog, p, src)
	if err != nil {
		return err
	}
	return out.writeOutputs(a.stdout, func(w io.Writer, format string) error {
		return report.Write(w, report.Format(format), rep)
	})
}

// analyze runs the analysis the flags describe, its progress shown as
// --progress says, and returns its report.
func (a *app) analyze(ctx context.Context, f *analyzeFlags, prog *progressFlags, p *mapping.Plan, src source.Source) (*analyze.Report, error) {
	prices := pricing.Default()
	if f.prices != "" {
		var err error
		if prices, err = pricing.Load(f.prices); err != nil {
			return nil, err
		}
	}
	var traffic map[string]analyze.Traffic
	if f.traffic != "" {
		var err error
		if traffic, err = readTraffic(f.traffic, p); err != nil {
			return nil, err
		}
	}
	tracker, stopProgress, err := prog.start(a, "preview")
	if err != nil {
		return nil, err
	}
	rep, err := analyze.Run(ctx, analyze.Options{
		Plan: p, Source: src, Readers: f.readers, SampleRate: f.sample, RateLimit: f.rateLimit,
		Prices: prices, Traffic: traffic, Progress: tracker,
	})
	stopProgress()
	return rep, err
}

// readTraffic reads --traffic: a YAML map of access pattern name to
// {per_second, items}, strictly (unknown fields and patterns are errors).
func readTraffic(path string, p *mapping.Plan) (map[string]analyze.Traffic, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the traffic file: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	t := map[string]analyze.Traffic{}
	if err := dec.Decode(&t); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("traffic file %s: %w", path, err)
	}
	if err := analyze.CheckTraffic(p, t); err != nil {
		return nil, fmt.Errorf("traffic file %s: %w", path, err)
	}
	return t, nil
}
