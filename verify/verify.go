package verify

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/remodel-dev/remodel/internal/backoff"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/source"
)

// Options configure one verification.
type Options struct {
	Plan   *mapping.Plan
	Source source.Source
	DB     *dynamodb.Client
	Table  string // empty: the mapping's table name
	// Samples is how many parameter sets each access pattern is checked with.
	Samples int
	// SkipItems leaves out the item-by-item comparison.
	SkipItems bool
	// SampleRate is the share of each entity's rows the item check compares
	// (more than 0, at most 1), chosen by a hash of each row's source key so
	// that every run compares the same rows. Zero means 1: every row.
	SampleRate float64
	// Workers is how many BatchGetItem calls the item check makes at once
	// (zero: 8), and Backoff their retry policy (zero: backoff.Default).
	Workers int
	Backoff backoff.Policy
	// MaxProblems caps how many problems each check lists (all are counted).
	MaxProblems int
	// Settle is how long, from the start of the run, a global index's Query
	// is repeated while it disagrees with the SQL, for the index to catch up
	// with the table (GSIs are eventually consistent). Zero means 10 s.
	Settle time.Duration
}

// Report is the outcome of a verification. OK is true only when every check passed.
type Report struct {
	Table    string         `json:"table"`
	Engine   string         `json:"engine"`
	OK       bool           `json:"ok"`
	Seconds  float64        `json:"seconds"`
	Counts   []CountCheck   `json:"counts"`
	Stray    StrayItems     `json:"stray_items"`
	Items    []ItemCheck    `json:"items,omitempty"`
	Patterns []PatternCheck `json:"access_patterns"`
	Warning  string         `json:"warning,omitempty"`
}

// CountCheck compares the number of source rows of an entity with the
// number of items of that entity in the table.
type CountCheck struct {
	Entity string `json:"entity"`
	Source int64  `json:"source_rows"`
	Items  int64  `json:"items"`
	OK     bool   `json:"ok"`
}

// StrayItems are items that belong to no entity of the mapping.
type StrayItems struct {
	Count    int64    `json:"count"`
	Examples []string `json:"examples,omitempty"`
}

// PatternCheck is one access pattern checked with sampled parameters.
type PatternCheck struct {
	Name     string   `json:"name"`
	Target   string   `json:"target"`
	Samples  int      `json:"samples"`
	Items    int64    `json:"items_compared"`
	Problems []string `json:"problems,omitempty"`
	Note     string   `json:"note,omitempty"`
	OK       bool     `json:"ok"`
}

// Run verifies the table against the source.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Table == "" {
		o.Table = o.Plan.Table.Name
	}
	if o.Samples < 1 {
		o.Samples = 10
	}
	if o.MaxProblems < 1 {
		o.MaxProblems = 20
	}
	if o.Settle <= 0 {
		o.Settle = 10 * time.Second
	}
	if o.SampleRate < 0 || o.SampleRate > 1 || math.IsNaN(o.SampleRate) {
		return nil, fmt.Errorf("verify: the sample rate must be more than 0 and at most 1, got %v", o.SampleRate)
	}
	start := time.Now()
	rep := &Report{Table: o.Table, Engine: string(o.Source.Engine())}
	snap, err := o.Source.Snapshot(ctx, 1)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	rep.Warning = snap.Warning()
	r := snap.Readers()[0]
	v := &verifier{o: o, r: r, t: &o.Plan.Table, settleUntil: start.Add(o.Settle)}

	if err := v.counts(ctx, rep); err != nil {
		return nil, err
	}
	if !o.SkipItems {
		for _, e := range o.Plan.Entities {
			ic, err := v.items(ctx, e)
			if err != nil {
				return nil, err
			}
			rep.Items = append(rep.Items, ic)
		}
	}
	for _, ap := range o.Plan.AccessPatterns {
		pc, err := v.pattern(ctx, ap)
		if err != nil {
			return nil, err
		}
		rep.Patterns = append(rep.Patterns, pc)
	}
	rep.OK = rep.Stray.Count == 0
	for _, c := range rep.Counts {
		rep.OK = rep.OK && c.OK
	}
	for _, c := range rep.Items {
		rep.OK = rep.OK && c.OK
	}
	for _, c := range rep.Patterns {
		rep.OK = rep.OK && c.OK
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

type verifier struct {
	o           Options
	r           source.Reader
	t           *mapping.Table
	settleUntil time.Time // global-index queries are repeated until then
}

func (v *verifier) problem(list *[]string, format string, args ...any) {
	if len(*list) < v.o.MaxProblems {
		*list = append(*list, fmt.Sprintf(format, args...))
	}
}
