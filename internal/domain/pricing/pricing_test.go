package pricing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefault(t *testing.T) {
	p := Default()
	if p.Region != "us-east-1" || p.Currency != "USD" || p.Date == "" || !strings.HasPrefix(p.Source, "https://aws.amazon.com/") {
		t.Errorf("the embedded table says region %q, currency %q, date %q, source %q", p.Region, p.Currency, p.Date, p.Source)
	}
	// The on-demand write of us-east-1's Standard class; a change to the
	// file must be deliberate (and change its date).
	if p.Standard.WriteRequestUnitsPerMillion != 0.625 || p.Date != "2024-11-01" {
		t.Errorf("standard on-demand writes %v per million as of %s", p.Standard.WriteRequestUnitsPerMillion, p.Date)
	}
	if p.StandardIA.StorageGBMonth >= p.Standard.StorageGBMonth {
		t.Errorf("Standard-IA storage (%v) should be cheaper than Standard (%v)", p.StandardIA.StorageGBMonth, p.Standard.StorageGBMonth)
	}
}

func TestLoad(t *testing.T) {
	good := string(defaultPrices)
	for _, tc := range []struct {
		name, text, err string
	}{
		{"the embedded table", good, ""},
		{"another region", strings.Replace(good, `"us-east-1"`, `"eu-west-1"`, 1), ""},
		{"unknown field", strings.Replace(good, `"import_gb"`, `"imports_gb"`, 1), `unknown field "imports_gb"`},
		{"missing import price", strings.Replace(good, `,
  "import_gb": 0.15`, "", 1), "missing [import_gb]"},
		{"missing date and source", strings.NewReplacer(`"date": "2024-11-01",`, "", `"source": "https://aws.amazon.com/dynamodb/pricing/",`, "").Replace(good), "missing [date source]"},
		{"bad date", strings.Replace(good, `"2024-11-01"`, `"Nov 2024"`, 1), `date "Nov 2024" is not YYYY-MM-DD`},
		{"zero price", strings.Replace(good, `"wcu_hour": 0.00065`, `"wcu_hour": 0`, 1), "standard.wcu_hour must be a price above 0, got 0"},
		{"a missing price in a class", strings.Replace(good, `"rcu_hour": 0.00016,`, ``, 1), "standard_ia.rcu_hour must be a price above 0, got 0"},
		{"not JSON", "region: us-east-1", "not a price table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "prices.json")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := Load(path)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.File != path || p.ImportGB != 0.15 {
					t.Errorf("file %q, import %v", p.File, p.ImportGB)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %v; want one naming %s and saying %q", err, path, tc.err)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "reading the price table") {
		t.Errorf("a missing file: %v", err)
	}
}
