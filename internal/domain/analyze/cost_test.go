package analyze_test

import (
	"math"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/domain/pricing"
)

// testPrices are round figures, so that the expected costs below can be
// worked out by hand.
var testPrices = &pricing.Prices{
	Region: "test-1", Currency: "USD", Date: "2025-01-01", Source: "test",
	Standard:   pricing.Class{WriteRequestUnitsPerMillion: 1.25, ReadRequestUnitsPerMillion: 0.25, WCUHour: 0.00065, RCUHour: 0.00013, StorageGBMonth: 0.25},
	StandardIA: pricing.Class{WriteRequestUnitsPerMillion: 1.5, ReadRequestUnitsPerMillion: 0.3, WCUHour: 0.0008, RCUHour: 0.00016, StorageGBMonth: 0.10},
	ImportGB:   0.15,
}

func TestEstimate(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name string
		in   analyze.CostInput
		want analyze.LoadCost
		gb   float64
		std  float64
		ia   float64
	}{
		{
			// 3.6M units at 1000/s: exactly one hour. On demand: (3.6M + 1.8M)
			// units at 1.25 a million = 6.75. Provisioned: the table 1000 WCU,
			// the index half as many writes, 500 WCU: 1500 WCU × 1 h × 0.00065
			// = 0.975. Import: 10 GB × 0.15 = 1.5. Storage: 2 GB × 0.25 = 0.5,
			// × 0.10 = 0.2.
			name: "one hour",
			in:   analyze.CostInput{TableWriteUnits: 3_600_000, GlobalWriteUnits: []int64{1_800_000}, StoredBytes: 2 * gib, ImportBytes: 10 * gib, Rate: 1000},
			want: analyze.LoadCost{OnDemand: 6.75, Provisioned: 0.975, ProvisionedRate: 1000, ProvisionedHours: 1, ProvisionedSeconds: 3600, ProvisionedWCU: 1500, Import: 1.5, ImportGB: 10},
			gb:   2, std: 0.5, ia: 0.2,
		},
		{
			// One unit over the hour: two started hours. No rate: 1000/s.
			// A local index of 360 000 units takes the table's capacity:
			// ceil(3 960 001 × 1000 / 3 600 001) = 1100 WCU; 2 h × 1100 ×
			// 0.00065 = 1.43. On demand: 3.960001 M × 1.25 = 4.95000125.
			name: "a second started hour and a local index",
			in:   analyze.CostInput{TableWriteUnits: 3_600_001, LocalWriteUnits: 360_000, StoredBytes: gib / 2, ImportBytes: gib / 4},
			want: analyze.LoadCost{OnDemand: 4.95000125, Provisioned: 1.43, ProvisionedRate: 1000, ProvisionedHours: 2, ProvisionedSeconds: 3600.001, ProvisionedWCU: 1100, Import: 0.0375, ImportGB: 0.25},
			gb:   0.5, std: 0.125, ia: 0.05,
		},
		{
			// A short load is billed one hour; an index with no writes still
			// gets the 1 WCU a provisioned index must have: 100 + 1 WCU for
			// 1 h = 0.06565. 5000 units on demand = 0.00625.
			name: "short load, an empty index",
			in:   analyze.CostInput{TableWriteUnits: 5000, GlobalWriteUnits: []int64{0}, Rate: 100},
			want: analyze.LoadCost{OnDemand: 0.00625, Provisioned: 0.06565, ProvisionedRate: 100, ProvisionedHours: 1, ProvisionedSeconds: 50, ProvisionedWCU: 101},
		},
		{
			name: "nothing to load",
			in:   analyze.CostInput{},
			want: analyze.LoadCost{ProvisionedRate: 1000},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := analyze.Estimate(testPrices, tc.in)
			got := c.Load
			near := func(what string, a, b float64) {
				if math.Abs(a-b) > 1e-9*max(1, math.Abs(b)) {
					t.Errorf("%s = %v; want %v", what, a, b)
				}
			}
			near("on-demand", got.OnDemand, tc.want.OnDemand)
			near("provisioned", got.Provisioned, tc.want.Provisioned)
			near("provisioned seconds", got.ProvisionedSeconds, tc.want.ProvisionedSeconds)
			near("import", got.Import, tc.want.Import)
			near("import GB", got.ImportGB, tc.want.ImportGB)
			if got.ProvisionedRate != tc.want.ProvisionedRate || got.ProvisionedHours != tc.want.ProvisionedHours || got.ProvisionedWCU != tc.want.ProvisionedWCU {
				t.Errorf("provisioned rate %d, hours %d, WCU %d; want %d, %d, %d", got.ProvisionedRate, got.ProvisionedHours, got.ProvisionedWCU,
					tc.want.ProvisionedRate, tc.want.ProvisionedHours, tc.want.ProvisionedWCU)
			}
			near("storage GB", c.StorageGB, tc.gb)
			near("storage Standard", c.StorageCost.Standard, tc.std)
			near("storage Standard-IA", c.StorageCost.StandardIA, tc.ia)
			if c.Prices.Region != "test-1" || c.Prices.Date != "2025-01-01" {
				t.Errorf("prices %+v: not the table given", c.Prices)
			}
		})
	}
}

func TestQueryCost(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		perSecond, items, bytes    float64
		units, onDemand, provision float64
		rcu                        int64
	}{
		// 400 items of 169 bytes: 67 600 bytes, 17 blocks of 4 KB, 8.5 units.
		// A month: 2 × 2 628 000 s × 8.5 = 44 676 000 units at 0.25 a
		// million = 11.169; provisioned ceil(2 × 8.5) = 17 RCU × 730 h ×
		// 0.00013 = 1.61330.
		{"many items", 2, 400, 169, 8.5, 11.169, 1.6133, 17},
		// One small item: half a unit. 100/s: 131 400 000 units = 32.85;
		// 50 RCU × 730 × 0.00013 = 4.745.
		{"one item", 100, 1, 120, 0.5, 32.85, 4.745, 50},
		// Nothing found still costs half a unit; 0.3/s needs 1 RCU.
		{"nothing found", 0.3, 0, 200, 0.5, 0.098550, 0.0949, 1},
		// Exactly 4096 bytes: one block, half a unit; 1/s: 1 314 000 units =
		// 0.3285.
		{"one block", 1, 2, 2048, 0.5, 0.3285, 0.0949, 1},
		// 4097 bytes: two blocks, one unit.
		{"one byte over a block", 1, 1, 4097, 1, 0.657, 0.0949, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			units, od, pr, rcu := analyze.QueryCost(testPrices, tc.perSecond, tc.items, tc.bytes)
			if units != tc.units || rcu != tc.rcu || math.Abs(od-tc.onDemand) > 1e-9 || math.Abs(pr-tc.provision) > 1e-9 {
				t.Errorf("QueryCost = %v units, %v on demand, %v provisioned (%d RCU); want %v, %v, %v (%d RCU)",
					units, od, pr, rcu, tc.units, tc.onDemand, tc.provision, tc.rcu)
			}
		})
	}
}

// TestRoutes: the route comparison, worked out by hand at testPrices
// (on-demand 1.25 a million write units, 0.00065 a WCU-hour, 0.15 an
// imported GB).
func TestRoutes(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name string
		in   analyze.CostInput
		want analyze.Routes
	}{
		{
			// 3.6 M items of 1 unit at 1000/s: one hour of 1000 WCU, 0.65,
			// 3.6 M items an hour: 0.65/3.6 = 0.180556 a million. Import:
			// 10 GB, 1.5, 0.416667 a million, 4.1667e-7 an item, more than
			// provisioned's 1.8056e-7 once the hours are full: dearer from
			// 0.65 / 4.1667e-7 = 1 560 000 items. On-demand 1.25 a million.
			name: "big items",
			in:   analyze.CostInput{TableWriteUnits: 3_600_000, ImportBytes: 10 * gib, Rate: 1000, Items: 3_600_000},
			want: analyze.Routes{OnDemand: 1.25, Provisioned: 0.65 / 3.6, Import: 1.5 / 3.6, ImportCheaperThanOnDemand: true,
				ImportDearerThanProvisionedFrom: 1_560_000, Cheapest: analyze.RouteProvisioned},
		},
		{
			// 1 M items, 128 MB of JSON: 0.01875, less an item than
			// provisioned's 0.180556 a million: cheaper at every size.
			name: "small items",
			in:   analyze.CostInput{TableWriteUnits: 1_000_000, ImportBytes: gib / 8, Rate: 1000, Items: 1_000_000},
			want: analyze.Routes{OnDemand: 1.25, Provisioned: 0.65 / 3.6, Import: 0.01875, ImportCheaperThanOnDemand: true, Cheapest: analyze.RouteImport},
		},
		{
			// 100 GB for 1 M one-unit items: 15 a million, more than
			// on-demand's 1.25; provisioned (one hour, 0.65) the cheapest.
			name: "JSON heavier than its write units",
			in:   analyze.CostInput{TableWriteUnits: 1_000_000, ImportBytes: 100 * gib, Rate: 1000, Items: 1_000_000},
			want: analyze.Routes{OnDemand: 1.25, Provisioned: 0.65 / 3.6, Import: 15, ImportDearerThanProvisionedFrom: 43_334, Cheapest: analyze.RouteProvisioned},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := analyze.Estimate(testPrices, tc.in).Load.Routes
			if got == nil {
				t.Fatal("no route comparison")
			}
			near := func(what string, a, b float64) {
				if math.Abs(a-b) > 1e-9*max(1, math.Abs(b)) {
					t.Errorf("%s = %v; want %v", what, a, b)
				}
			}
			near("on-demand a million", got.OnDemand, tc.want.OnDemand)
			near("provisioned a million", got.Provisioned, tc.want.Provisioned)
			near("import a million", got.Import, tc.want.Import)
			if got.ImportCheaperThanOnDemand != tc.want.ImportCheaperThanOnDemand || got.ImportDearerThanProvisionedFrom != tc.want.ImportDearerThanProvisionedFrom || got.Cheapest != tc.want.Cheapest {
				t.Errorf("routes %+v; want %+v", *got, tc.want)
			}
		})
	}
	if r := analyze.Estimate(testPrices, analyze.CostInput{TableWriteUnits: 5}).Load.Routes; r != nil {
		t.Errorf("no items, routes %+v; want none", *r)
	}
}
