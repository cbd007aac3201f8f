package analyze

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/pricing"
	"github.com/remodel-dev/remodel/mapping"
)

// MonthHours is the month traffic is priced over: 730 hours, AWS's month.
const MonthHours = 730

// Traffic is an access pattern's rate, as the user gives it.
type Traffic struct {
	// PerSecond is the pattern's queries per second, averaged over a month.
	PerSecond float64 `yaml:"per_second" json:"per_second"`
	// Items is how many items one query returns; 0: estimated from the
	// data (the mean items per partition key value of the pattern's table
	// or index, at most its limit).
	Items float64 `yaml:"items" json:"items,omitempty"`
}

// PatternCost is a month of one access pattern's queries (eventually
// consistent Query requests, Standard table class).
type PatternCost struct {
	Pattern   string  `json:"pattern"`
	Index     string  `json:"index"` // the table's name for the table
	PerSecond float64 `json:"per_second"`
	Items     float64 `json:"items"` // per query
	// Estimated: Items comes from the data; UpperBound: the pattern has a
	// sort key condition, which the estimate (a whole partition key
	// value's items) does not apply.
	Estimated  bool    `json:"estimated"`
	UpperBound bool    `json:"upper_bound"`
	ItemBytes  float64 `json:"item_bytes"` // mean item size in the table or index
	ReadUnits  float64 `json:"read_units"` // per query
	OnDemand   float64 `json:"on_demand"`
	// Provisioned is ProvisionedRCU read capacity units for the month.
	Provisioned    float64 `json:"provisioned"`
	ProvisionedRCU int64   `json:"provisioned_rcu"`
}

// QueryCost prices a month of an access pattern: perSecond eventually
// consistent queries each returning items items of itemBytes on average.
// A Query reads the sum of its items' sizes, rounded up to 4 KB, at half a
// read unit per 4 KB (at least half a unit, for a query that finds
// nothing). On-demand: the read request units of a month of 730 hours;
// provisioned: the read capacity units the rate needs, for 730 hours.
func QueryCost(p *pricing.Prices, perSecond, items, itemBytes float64) (readUnits, onDemand, provisioned float64, rcu int64) {
	readUnits = max(1, math.Ceil(items*itemBytes/4096)) / 2
	onDemand = perSecond * MonthHours * 3600 * readUnits / 1e6 * p.Standard.ReadRequestUnitsPerMillion
	rcu = int64(math.Ceil(perSecond * readUnits))
	provisioned = float64(rcu) * MonthHours * p.Standard.RCUHour
	return readUnits, onDemand, provisioned, rcu
}

// CheckTraffic returns an error naming the patterns in t the plan does not
// have, and the rates that are not numbers above 0.
func CheckTraffic(p *mapping.Plan, t map[string]Traffic) error {
	names := make([]string, 0, len(p.AccessPatterns))
	for _, ap := range p.AccessPatterns {
		names = append(names, ap.Name)
	}
	var keys []string
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := t[k]
		switch {
		case !slices.Contains(names, k):
			return fmt.Errorf("the mapping has no access pattern %q (access patterns: %s)", k, strings.Join(names, ", "))
		case !(v.PerSecond > 0) || math.IsInf(v.PerSecond, 0):
			return fmt.Errorf("access pattern %s: per_second must be a number above 0, got %v", k, v.PerSecond)
		case !(v.Items >= 0) || math.IsInf(v.Items, 0):
			return fmt.Errorf("access pattern %s: items must be a number of 0 (estimate it) or more, got %v", k, v.Items)
		}
	}
	return nil
}

// traffic prices the access patterns the options give rates for, in the
// mapping's order.
func (a *aggregate) traffic(r *Report) {
	t := a.o.Plan.Table
	for _, ap := range a.o.Plan.AccessPatterns {
		tr, ok := a.o.Traffic[ap.Name]
		if !ok {
			continue
		}
		i := 0
		for j, ix := range t.Indexes {
			if ix == ap.Index {
				i = 1 + j
			}
		}
		is := r.Indexes[i]
		pc := PatternCost{Pattern: ap.Name, Index: is.Name, PerSecond: tr.PerSecond, Items: tr.Items}
		if is.Items > 0 {
			pc.ItemBytes = float64(is.DataBytes) / float64(is.Items)
		}
		if pc.Items == 0 {
			pc.Estimated = true
			pc.Items = is.MeanItems
			if ap.Limit > 0 {
				pc.Items = min(pc.Items, float64(ap.Limit))
			}
			pc.UpperBound = ap.SKEq > 0 || ap.SKOp != ""
		}
		pc.ReadUnits, pc.OnDemand, pc.Provisioned, pc.ProvisionedRCU = QueryCost(a.o.Prices, pc.PerSecond, pc.Items, pc.ItemBytes)
		r.Cost.Traffic = append(r.Cost.Traffic, pc)
	}
}
