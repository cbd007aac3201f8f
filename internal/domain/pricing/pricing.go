package pricing

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
)

//go:embed prices/us-east-1.json
var defaultPrices []byte

// Prices is one region's price table. Money is in Currency; a GB is 2^30
// bytes, as DynamoDB bills storage.
type Prices struct {
	Region   string `json:"region"`
	Currency string `json:"currency"`
	// Date is the day the figures were in effect (YYYY-MM-DD); Source the
	// page they come from; Note how they were taken.
	Date       string `json:"date"`
	Source     string `json:"source"`
	Note       string `json:"note,omitempty"`
	Standard   Class  `json:"standard"`
	StandardIA Class  `json:"standard_ia"`
	// ImportGB is the price of importing one GB of uncompressed source
	// data from S3 (ImportTable).
	ImportGB float64 `json:"import_gb"`
	// BulkPutGB is the price of a GB written by a bulk put from S3 into an
	// existing table (StartBulkPutItems), table and indexes, Standard
	// tier; nil where it was not published (the embedded table has none).
	BulkPutGB *float64 `json:"bulk_put_gb,omitempty"`
	// File is where the table was read from ("" for the embedded one).
	File string `json:"-"`
}

// Class is the prices of one table class.
type Class struct {
	WriteRequestUnitsPerMillion float64 `json:"write_request_units_per_million"` // on-demand
	ReadRequestUnitsPerMillion  float64 `json:"read_request_units_per_million"`  // on-demand
	WCUHour                     float64 `json:"wcu_hour"`                        // provisioned, one write capacity unit for an hour
	RCUHour                     float64 `json:"rcu_hour"`                        // provisioned, one read capacity unit for an hour
	StorageGBMonth              float64 `json:"storage_gb_month"`
}

// Default returns the embedded price table (us-east-1).
func Default() *Prices {
	p, err := parse(defaultPrices)
	if err != nil {
		panic("pricing: the embedded price table: " + err.Error())
	}
	return p
}

// Load reads a price table in the embedded one's shape from path.
func Load(path string) (*Prices, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pricing: reading the price table: %w", err)
	}
	p, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("pricing: %s: %w", path, err)
	}
	p.File = path
	return p, nil
}

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// parse reads a price table strictly: unknown fields are errors, and every
// price must be given (a missing one would silently cost nothing).
func parse(b []byte) (*Prices, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var raw struct {
		Prices
		Standard   *Class   `json:"standard"`
		StandardIA *Class   `json:"standard_ia"`
		ImportGB   *float64 `json:"import_gb"`
	}
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not a price table: %w", err)
	}
	p := raw.Prices
	var missing []string
	for name, v := range map[string]string{"region": p.Region, "currency": p.Currency, "date": p.Date, "source": p.Source} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if raw.Standard == nil {
		missing = append(missing, "standard")
	}
	if raw.StandardIA == nil {
		missing = append(missing, "standard_ia")
	}
	if raw.ImportGB == nil {
		missing = append(missing, "import_gb")
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("missing %v", missing)
	}
	if !dateRE.MatchString(p.Date) {
		return nil, fmt.Errorf("date %q is not YYYY-MM-DD", p.Date)
	}
	p.Standard, p.StandardIA, p.ImportGB = *raw.Standard, *raw.StandardIA, *raw.ImportGB
	for _, c := range []struct {
		name string
		c    Class
	}{{"standard", p.Standard}, {"standard_ia", p.StandardIA}} {
		for field, v := range map[string]float64{
			"write_request_units_per_million": c.c.WriteRequestUnitsPerMillion,
			"read_request_units_per_million":  c.c.ReadRequestUnitsPerMillion,
			"wcu_hour":                        c.c.WCUHour,
			"rcu_hour":                        c.c.RCUHour,
			"storage_gb_month":                c.c.StorageGBMonth,
		} {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s.%s must be a price above 0, got %v", c.name, field, v)
			}
		}
	}
	if !(p.ImportGB > 0) || math.IsInf(p.ImportGB, 0) {
		return nil, fmt.Errorf("import_gb must be a price above 0, got %v", p.ImportGB)
	}
	return &p, nil
}
