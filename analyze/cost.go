package analyze

import (
	"math"

	"github.com/remodel-dev/remodel/internal/pricing"
)

// gb is DynamoDB's billing gigabyte.
const gb = 1 << 30

// CostInput is what the cost is figured from (all rows, scaled when a
// sample was taken).
type CostInput struct {
	TableWriteUnits  int64   // puts into the table
	LocalWriteUnits  int64   // writes into its local indexes (they take the table's capacity)
	GlobalWriteUnits []int64 // writes into each global index
	StoredBytes      int64   // table and indexes, with 100 bytes per item
	ImportBytes      int64   // uncompressed DynamoDB JSON of the items
	Rate             int64   // the load's rate into the table, write units per second; 0: DefaultProvisionedRate
}

// Estimate prices a load and a month of storage (Standard table class for
// the load; both classes for storage). It is plain arithmetic on its
// input; the tests check it against figures worked out by hand.
func Estimate(p *pricing.Prices, in CostInput) Cost {
	c := Cost{Prices: priceRef(p)}
	all := in.TableWriteUnits + in.LocalWriteUnits
	for _, g := range in.GlobalWriteUnits {
		all += g
	}
	c.Load.OnDemand = float64(all) / 1e6 * p.Standard.WriteRequestUnitsPerMillion

	rate := in.Rate
	if rate <= 0 {
		rate = DefaultProvisionedRate
	}
	c.Load.ProvisionedRate = rate
	if in.TableWriteUnits > 0 {
		secs := float64(in.TableWriteUnits) / float64(rate)
		hours := max(1, int64(math.Ceil(secs/3600)))
		perUnit := float64(rate) / float64(in.TableWriteUnits) // capacity per write unit of the load
		wcu := int64(math.Ceil(float64(in.TableWriteUnits+in.LocalWriteUnits) * perUnit))
		for _, g := range in.GlobalWriteUnits {
			wcu += max(1, int64(math.Ceil(float64(g)*perUnit)))
		}
		c.Load.ProvisionedSeconds = secs
		c.Load.ProvisionedHours = hours
		c.Load.ProvisionedWCU = wcu
		c.Load.Provisioned = float64(hours) * float64(wcu) * p.Standard.WCUHour
	}

	c.Load.ImportGB = float64(in.ImportBytes) / gb
	c.Load.Import = c.Load.ImportGB * p.ImportGB
	c.StorageGB = float64(in.StoredBytes) / gb
	c.StorageCost.Standard = c.StorageGB * p.Standard.StorageGBMonth
	c.StorageCost.StandardIA = c.StorageGB * p.StandardIA.StorageGBMonth
	return c
}

func (a *aggregate) cost(r *Report) {
	in := CostInput{TableWriteUnits: r.Totals.TableWriteUnits, StoredBytes: r.Totals.StoredBytes, ImportBytes: r.Totals.ImportBytes, Rate: a.o.RateLimit}
	for i, ix := range a.o.Plan.Table.Indexes {
		wu := a.scale(a.indexes[1+i].wcu)
		if ix.Local {
			in.LocalWriteUnits += wu
		} else {
			in.GlobalWriteUnits = append(in.GlobalWriteUnits, wu)
		}
	}
	r.Cost = Estimate(a.o.Prices, in)
}
