package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/introspect"
)

func TestCapacitySets(t *testing.T) {
	sets := capacitySets(1000000)
	if len(sets) != 2 || sets[0] != (capacitySet{"even", 1000000, 0}) || sets[1] != (capacitySet{"skewed", 1000000, 200000}) {
		t.Errorf("sets %+v: want an even one and a skewed one with a collection of 200 000 items at a million rows", sets)
	}
	if s := capacitySets(3)[1]; s.hot != 1 {
		t.Errorf("3 rows: hot %d, want 1", s.hot)
	}
}

func TestCapacitySQL(t *testing.T) {
	s := capacitySet{"skewed", 12345, 2469}
	pg := strings.Join(capacitySQL(introspect.Postgres, s), ";\n")
	for _, want := range []string{"DROP TABLE IF EXISTS remodel_capacity_skewed", "generate_series(1, 12345)", "WHEN g <= 2469 THEN 'HOT'"} {
		if !strings.Contains(pg, want) {
			t.Errorf("PostgreSQL script lacks %q:\n%s", want, pg)
		}
	}
	my := strings.Join(capacitySQL(introspect.MySQL, s), ";\n")
	// five digits reach 99 999 >= 12 345, and no more are joined
	for _, want := range []string{"d4.n*10000", "WHERE g <= 12345", "CONCAT('G', g)", "WHEN g <= 2469 THEN 'HOT'"} {
		if !strings.Contains(my, want) {
			t.Errorf("MySQL script lacks %q:\n%s", want, my)
		}
	}
	if strings.Contains(my, "d5.n") {
		t.Errorf("MySQL script joins more digits than 12 345 rows need:\n%s", my)
	}
	if m := capacityMapping(s); !strings.Contains(m, "from: remodel_capacity_skewed") || !strings.Contains(m, `pk: "{grp}"`) {
		t.Errorf("mapping:\n%s", m)
	}
}

func TestWriteCapacity(t *testing.T) {
	var b bytes.Buffer
	m := faultproxy.Capacity{PartitionKey: "PK", KeyLimit: 1000, TableLimit: 4000, Scale: 0.25}
	writeCapacity(&b, m, []capacityResult{
		{set: capacitySet{"even", 20000, 0}, stats: faultproxy.CapacityStats{Admitted: 20000, Throttled: 900, Elapsed: 5 * time.Second}, share: 0.97},
		{set: capacitySet{"skewed", 20000, 4000}, stats: faultproxy.CapacityStats{Admitted: 20000, Throttled: 5000, Elapsed: 8 * time.Second}, share: 0.7},
	})
	out := b.String()
	for _, want := range []string{
		"1000 WU/s a partition key, 4000 WU/s the table, time x0.25 (real time: 250 and 1000 WU/s)",
		"even          20000          0         1000          900     0.97 ok",
		"skewed        20000       4000          625         5000     0.70 BELOW",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
