package document_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/internal/app/document"
	"github.com/remodel-dev/remodel/internal/domain/analyze"
)

// TestPersonalizationAnalysisMarkdown renders the document of the
// personalization example with --analyze (at a load rate, with the access
// patterns' traffic) on a real source of each engine and compares it with
// its golden file; the figures in it are those of preview --analyze
// --output json on the same source.
func TestPersonalizationAnalysisMarkdown(t *testing.T) {
	for _, engine := range []string{"postgres", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			dsn, db := personalization(t, engine)
			// One reader: which entity a partition key value is first seen with
			// depends on how parallel readers interleave.
			flags := []string{"--analyze", "--readers", "1", "--rate-limit", "8000", "--traffic", "testdata/traffic.yaml"}
			md := string(writeDocument(t, dsn, ".md", "3", flags...))

			code, js := remodel(t, append([]string{"preview", "--source", dsn, "-m", "../../../examples/personalization/mapping.yaml", "--output", "json"}, flags...)...)
			if code != 0 {
				t.Fatalf("preview --analyze --output json: exit %d\n%s", code, js)
			}
			var rep analyze.Report
			if err := json.Unmarshal([]byte(js[strings.Index(js, "{"):]), &rep); err != nil {
				t.Fatal(err)
			}
			if len(rep.Warnings) == 0 || len(rep.Cost.Traffic) != 2 {
				t.Fatalf("the report has %d warnings and %d priced patterns; the test needs some and 2", len(rep.Warnings), len(rep.Cost.Traffic))
			}
			want := []string{
				"- [Analysis](#analysis)\n- [Cost](#cost)\n",
				fmt.Sprintf("- write units: %d (%d into the table, %d into indexes)", rep.Totals.WriteUnits, rep.Totals.TableWriteUnits, rep.Totals.WriteUnits-rep.Totals.TableWriteUnits),
				fmt.Sprintf("| load, on-demand | %.4f |", rep.Cost.Load.OnDemand),
				fmt.Sprintf("as of %s", rep.Cost.Prices.Date),
			}
			for _, e := range rep.Entities {
				want = append(want, fmt.Sprintf("| %s | %d | %d | %d |", e.Name, e.Rows, e.Items, e.Rejected))
			}
			for _, tr := range rep.Cost.Traffic {
				want = append(want, fmt.Sprintf("| %s | %s | %g |", tr.Pattern, tr.Index, tr.PerSecond))
			}
			for _, w := range rep.Warnings {
				want = append(want, "\n- "+w.Message+"\n")
			}
			// The text as written, without Markdown's escapes.
			plain := regexp.MustCompile(`\\([\\*\x60\[\]<>~|_])`).ReplaceAllString(md, "$1")
			for _, s := range want {
				if !strings.Contains(plain, s) {
					t.Errorf("the document lacks %q", s)
				}
			}
			// --document - writes the same document on stdout, and nothing else.
			if code, out := remodel(t, append([]string{"preview", "--source", dsn, "-m", "../../../examples/personalization/mapping.yaml", "--document", "-"}, flags...)...); code != 0 || !strings.HasSuffix(out, md) {
				t.Errorf("preview --document - --analyze: exit %d, and stdout is not the document's file:\n%s", code, out)
			}
			golden.Check(t, "personalization.analyze."+engine+".md", []byte(strings.ReplaceAll(md, db, "DB")))
		})
	}
}

// report is an analysis with everything a report can hold: a sample,
// rejected rows, a local index's item collections, an estimated partition
// count, overstated weights, traffic with an upper bound, a snapshot
// warning, and text that Markdown and HTML would read as markup.
func report() *analyze.Report {
	parts := func(k string, w int64) []analyze.Partition {
		return []analyze.Partition{{Key: k, Entity: "play", Entities: []string{"play"}, Weight: w, Error: 3, Share: 0.5, StandsOut: true}}
	}
	return &analyze.Report{
		Version: 1, Table: "scores", Engine: "postgres", SampleRate: 0.25, RateLimit: 2000,
		SnapshotWarning: "the snapshot is not <consistent>",
		Entities: []analyze.EntityStats{{Name: "play", Rows: 400, Sampled: 100, Items: 98, Rejected: 2,
			Rejects: []analyze.RejectGroup{{Kind: "column score: N > max", Reason: "column score: 7 > max", Rows: 2, Examples: []string{"play_id=1", "play_id=2"}}},
			Sizes:   analyze.Sizes{Items: 98, Bytes: 9800, Mean: 100, P50: 99, P99: 180, Max: 200}, WriteUnits: 98}},
		Sizes: analyze.Sizes{Items: 98, Bytes: 9800, Mean: 100, P50: 99, P99: 180, Max: 200},
		Indexes: []analyze.IndexStats{
			{Name: "scores", Kind: "table", PK: "Id", SK: "SK", Items: 98, StoredBytes: 19600, WriteUnits: 98, Partitions: 70000, Estimated: true, MeanItems: 1.4,
				ByItems: parts("10", 9), ByBytes: parts("10", 900), ByWriteUnits: parts("10", 9), PeakRate: 1500.4,
				LongestRun: &analyze.KeyRun{Key: "10", Entity: "play", Items: 9, WriteUnits: 9, TableWriteUnits: 9}},
			{Name: "ByGame", Kind: "local", PK: "Id", SK: "score", Items: 98, StoredBytes: 19600, WriteUnits: 98,
				Amplification: &analyze.Amplification{Items: 1, WriteUnits: 1}, Partitions: 3, MeanItems: 32.7,
				ByItems: parts("chess|go <b>", 50), ByBytes: parts("chess|go <b>", 5000), ByWriteUnits: parts("chess|go <b>", 50)},
		},
		Collections: &analyze.Collections{Largest: parts("10", 1800), Limit: analyze.CollectionLimit},
		Totals:      analyze.Totals{Scaled: true, Items: 392, Rejected: 8, TableWriteUnits: 392, WriteUnits: 784, DataBytes: 39200, StoredBytes: 117600, ImportBytes: 50000},
		Warnings:    []analyze.Warning{{Kind: "hot-partition", Index: "scores", Message: "index scores: partition Id = 10 takes *half* of it"}},
		Cost: analyze.Cost{
			Prices:    analyze.PriceRef{Region: "eu-west-1", Currency: "EUR", Date: "2025-01-02", Source: "https://example.com/prices", File: "prices.json", Note: "checked by hand"},
			Load:      analyze.LoadCost{OnDemand: 0.0012, Provisioned: 123.456, ProvisionedRate: 2000, ProvisionedHours: 2, ProvisionedSeconds: 4000, ProvisionedWCU: 4000, Import: 0.0001, ImportGB: 0.0005},
			StorageGB: 0.0001, StorageCost: analyze.StorageCost{Standard: 0.00003, StandardIA: 0.00001},
			Traffic: []analyze.PatternCost{{Pattern: "top", Index: "ByGame", PerSecond: 5, Items: 2, Estimated: true, UpperBound: true, ReadUnits: 0.5, OnDemand: 1.1, Provisioned: 0.5, ProvisionedRCU: 3}},
		},
	}
}

// TestAnalysisSections: every part of a report is in both formats, in
// tables that markup in the data cannot break, and in the contents.
func TestAnalysisSections(t *testing.T) {
	p, res := scores(t)
	d := document.Build(p, res, document.Options{MappingFile: "scores.yaml", Rows: 4})
	d.AddAnalysis(report())
	var md, html bytes.Buffer
	if err := d.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"- [Analysis](#analysis)\n- [Cost](#cost)\n",
		"## Analysis\n\nFrom a sample of 25% of each entity's rows",
		"Warning: the snapshot is not \\<consistent\\>",
		"| play | 100 of 400 | 98 | 2 | 99 | 180 | 200 | 100 | 98 |",
		"| play | 2 | column score: N \\> max | play_id=1: column score: 7 \\> max | play_id=2 |",
		"| scores | table | Id / SK | 98 | 19.1 KiB | 98 | — | about 70000 | 1.4 |",
		"| items | chess\\|go \\<b\\> | play | 50 items (at most 3 items overstated) | 50% |",
		"### Item collections",
		"During a load at --rate-limit 2000, spread evenly, the busiest partition receives 1500 write units per second",
		"Longest run in the order migrate reads the rows: 10, 9 items of entity play one after another (9 write units).",
		"- index scores: partition Id = 10 takes \\*half\\* of it",
		"### Totals (scaled from the sample)",
		"## Cost\n\nIn EUR, at the list prices of eu-west-1 as of 2025-01-02, from the price table prices.json (source: https://example.com/prices).",
		"About the prices: checked by hand",
		"| load, provisioned | 123.46 | 4000 WCU, table and global indexes, for 2 started hours: the load takes 1.1 h at --rate-limit 2000 |",
		"| top | ByGame | 5 | at most 2.0 (estimated) | 0.5 | 1.1000 | 0.5000 (3 RCU) |",
	} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("the Markdown lacks %q", s)
		}
	}
	for _, line := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(line, "| ") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") < 3 {
			t.Errorf("a table row with too few cells: %s", line)
		}
	}
	for _, s := range []string{
		`<a href="#analysis">Analysis</a><a href="#cost">Cost</a>`,
		`<section id="analysis">`, `<section id="cost">`,
		`<table class="analysis-items">`, `<table class="analysis-rejects">`, `<table class="analysis-indexes">`,
		`<table class="analysis-partitions">`, `<table class="cost">`, `<table class="cost-traffic">`,
		`<td>chess|go &lt;b&gt;</td>`, `<p>Warning: the snapshot is not &lt;consistent&gt;</p>`,
		`<li>index scores: partition Id = 10 takes *half* of it</li>`,
	} {
		if !strings.Contains(html.String(), s) {
			t.Errorf("the HTML lacks %q", s)
		}
	}
	if strings.Contains(html.String(), "<b>") {
		t.Error("the HTML does not escape a partition key")
	}
}

// TestAnalysisWithoutTraffic: a report of every row with no rejects, no
// local index and no traffic says so instead of leaving tables empty.
func TestAnalysisWithoutTraffic(t *testing.T) {
	r := report()
	r.SampleRate, r.RateLimit, r.Collections, r.Cost.Traffic, r.Warnings = 1, 0, nil, nil, nil
	r.Entities[0].Rejects = nil
	r.Indexes[0].MaxRate = 2500
	r.Cost.Prices.File = ""
	p, res := scores(t)
	d := document.Build(p, res, document.Options{MappingFile: "scores.yaml", Rows: 4})
	d.AddAnalysis(r)
	var md bytes.Buffer
	if err := d.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"From every row of every entity of the postgres source",
		"### Rejected rows\n\nNone: every row becomes an item.",
		"### Warnings\n\nNone.",
		"The busiest partition receives 1000 write units per second when the load writes 2500 per second into the table, spread evenly.",
		"from the built-in price table",
		"Not priced: the access patterns' rates were not given",
	} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("the Markdown lacks %q", s)
		}
	}
	for _, s := range []string{"Item collections", "| top |", "| entity | rows | reason |"} {
		if strings.Contains(md.String(), s) {
			t.Errorf("the Markdown has %q", s)
		}
	}
}
