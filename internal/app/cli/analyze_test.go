package cli

import (
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestAnalyzeUsageErrors: the analysis flags are checked before anything
// is opened, like every other flag.
func TestAnalyzeUsageErrors(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"preview", "--sample", "0.5"}, "--sample is a flag of the analysis: give --analyze too"},
		{[]string{"preview", "--prices", "p.json", "--rate-limit", "5"}, "--rate-limit is a flag of the analysis: give --analyze too\nremodel: --prices is a flag of the analysis: give --analyze too"},
		{[]string{"preview", "--traffic", "t.yaml"}, "--traffic is a flag of the analysis: give --analyze too"},
		{[]string{"preview", "--analyze", "--sample", "0"}, "--sample must be more than 0 and at most 1, got 0"},
		{[]string{"preview", "--analyze", "--sample", "1.5"}, "--sample must be more than 0 and at most 1, got 1.5"},
		{[]string{"preview", "--analyze", "--rate-limit", "-1"}, "--rate-limit must be at least 0, got -1"},
		{[]string{"preview", "--analyze", "--readers", "0"}, "--readers must be at least 1, got 0"},
		{[]string{"preview", "--analyze", "--rows", "5"}, "--rows is for the item preview; --analyze reads every entity's rows (--sample takes a share of them)"},
		{[]string{"preview", "--analyze", "--entity", "x"}, "--entity is for the item preview; --analyze reads every entity's rows (--sample takes a share of them)"},
		// With --document the example data is item collections: --rows and --entity are refused.
		{[]string{"preview", "--analyze", "--document", "d.md", "--rows", "5", "--entity", "x"}, "--rows is for the item preview; the document's example data is item collections (--partition, --partitions, --scan-rows)\nremodel: --entity is for the item preview; the document's example data is item collections (--partition, --partitions, --scan-rows)"},
		{[]string{"preview", "--partition", "USER#1"}, "--partition is for the modeling document: give --document FILE too"},
		{[]string{"preview", "--document", "d.md", "--partitions", "0"}, "--partitions must be at least 1, got 0"},
	} {
		code, out, errOut := remodel(t, tc.args...)
		if code != exitUsage || out != "" || errOut != "remodel: "+tc.want+"\n" {
			t.Errorf("remodel %q: exit %d, stdout %q, stderr:\n%s\nwant exit %d and:\nremodel: %s", tc.args, code, out, errOut, exitUsage, tc.want)
		}
	}
}

// TestAnalyzeCommand runs preview --analyze on the personalization example
// on both engines, as text and as JSON, with the built-in prices and with
// a price table from a file; a broken price file stops it with status 3.
func TestAnalyzeCommand(t *testing.T) {
	example := filepath.Join("..", "..", "..", "examples", "personalization")
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel() // each its own database and table
			dsn := eng.Fresh(t)
			testenv.LoadExample(t, eng.Name, dsn, example)
			m := filepath.Join(example, "mapping.yaml")

			code, out, errOut := remodel(t, "preview", "--analyze", "--source", dsn, "-m", m, "--rate-limit", "8000")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, want := range []string{
				"analysis of the mapping into DynamoDB table personalization on " + eng.Name + "\n  From every row",
				"index GSI2: all its 2483 items have one partition key value (data = SUBSCRIBE_USER): a constant partition key",
				"index GSI1: partition SK = USER# takes 15% of its write units (1000)",
				"at --rate-limit 8000 it receives 1172 write units per second",
				"prices of us-east-1 as of 2024-11-01, from the built-in price table",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("the text report lacks %q:\n%s", want, out)
				}
			}
			if !regexp.MustCompile(`\n  load, on-demand +0\.0101 +16139 write request units, table and indexes\n`).MatchString(out) {
				t.Errorf("the text report's cost lacks the on-demand load:\n%s", out)
			}

			prices := writeFile(t, "prices.json", strings.Replace(pricesJSON, "0.625", "1.25", 1))
			traffic := writeFile(t, "traffic.yaml", "findUserBySubscribeService: {per_second: 2, items: 400}\nfindPersonalByUserIdAndService: {per_second: 50}\n")
			code, out, errOut = remodel(t, "preview", "--analyze", "--source", dsn, "-m", m, "--output", "json", "--prices", prices, "--sample", "0.5", "--traffic", traffic)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var rep struct {
				Version    int     `json:"version"`
				SampleRate float64 `json:"sample_rate"`
				Entities   []struct {
					Name    string `json:"name"`
					Rows    int64  `json:"rows"`
					Sampled int64  `json:"sampled"`
				} `json:"entities"`
				Totals struct {
					WriteUnits int64 `json:"write_units"`
				} `json:"totals"`
				Cost struct {
					Prices struct {
						File string `json:"file"`
					} `json:"prices"`
					Load struct {
						OnDemand float64 `json:"on_demand"`
					} `json:"load"`
					Traffic []struct {
						Pattern    string  `json:"pattern"`
						Index      string  `json:"index"`
						Items      float64 `json:"items"`
						Estimated  bool    `json:"estimated"`
						UpperBound bool    `json:"upper_bound"`
						ItemBytes  float64 `json:"item_bytes"`
						ReadUnits  float64 `json:"read_units"`
						OnDemand   float64 `json:"on_demand"`
					} `json:"traffic_month"`
				} `json:"cost"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if rep.Version != 1 || rep.SampleRate != 0.5 || len(rep.Entities) != 5 || rep.Cost.Prices.File != prices {
				t.Errorf("version %d, sample %v, %d entities, prices from %q", rep.Version, rep.SampleRate, len(rep.Entities), rep.Cost.Prices.File)
			}
			if want := float64(rep.Totals.WriteUnits) / 1e6 * 1.25; rep.Cost.Load.OnDemand != want {
				t.Errorf("on-demand %v for %d units; want %v at the file's 1.25 a million", rep.Cost.Load.OnDemand, rep.Totals.WriteUnits, want)
			}
			// In the mapping's order: findPersonalByUserIdAndService first.
			if tr := rep.Cost.Traffic; len(tr) != 2 || tr[0].Pattern != "findPersonalByUserIdAndService" || !tr[0].Estimated || !tr[0].UpperBound ||
				tr[1].Pattern != "findUserBySubscribeService" || tr[1].Index != "GSI2" || tr[1].Items != 400 || tr[1].Estimated {
				t.Errorf("traffic %+v", tr)
			} else {
				units := math.Ceil(400*tr[1].ItemBytes/4096) / 2
				if tr[1].ReadUnits != units || math.Abs(tr[1].OnDemand-2*730*3600*units/1e6*0.125) > 1e-9 {
					t.Errorf("findUserBySubscribeService: %v units, %v on demand; want %v units of %v bytes", tr[1].ReadUnits, tr[1].OnDemand, units, tr[1].ItemBytes)
				}
			}
			for _, e := range rep.Entities {
				if e.Name == "personal" && (e.Rows != 3004 || e.Sampled == 0 || e.Sampled == e.Rows) {
					t.Errorf("personal: %d rows, %d sampled", e.Rows, e.Sampled)
				}
			}

			code, _, errOut = remodel(t, "preview", "--analyze", "--source", dsn, "-m", m, "--traffic", writeFile(t, "t.yaml", "findUser: {per_second: 1}\n"))
			if code != exitError || !strings.Contains(errOut, `the mapping has no access pattern "findUser" (access patterns: findUserByUserId, `) {
				t.Errorf("an unknown pattern in the traffic file: exit %d, %s", code, errOut)
			}
			bad := writeFile(t, "bad.json", `{"region": "x"}`)
			code, _, errOut = remodel(t, "preview", "--analyze", "--source", dsn, "-m", m, "--prices", bad)
			if code != exitError || !strings.Contains(errOut, "pricing: "+bad+": missing [currency date import_gb source standard standard_ia]") {
				t.Errorf("a broken price file: exit %d, %s", code, errOut)
			}
		})
	}
}

const pricesJSON = `{
  "region": "us-east-1", "currency": "USD", "date": "2025-01-01", "source": "a test",
  "standard": {"write_request_units_per_million": 0.625, "read_request_units_per_million": 0.125, "wcu_hour": 0.00065, "rcu_hour": 0.00013, "storage_gb_month": 0.25},
  "standard_ia": {"write_request_units_per_million": 0.78125, "read_request_units_per_million": 0.15625, "wcu_hour": 0.00081, "rcu_hour": 0.00016, "storage_gb_month": 0.10},
  "import_gb": 0.15
}`
