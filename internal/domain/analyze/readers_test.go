package analyze_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestReadersSameReport: four entities put their items into the same five
// partitions, in runs of 40 as long as one another; analysed by 4 readers
// (which deliver the entities' items interleaved in any order) twice, the
// reports are the same, and name the first entity in the mapping (d) for a
// partition and for the longest run (of the smallest key).
func TestReadersSameReport(t *testing.T) {
	eng := testenv.Engines[0]
	dsn := eng.Fresh(t)
	var sql, mapping strings.Builder
	mapping.WriteString("version: 1\ntable: {name: shared, key: {pk: PK, sk: SK}}\nentities:\n")
	for _, e := range []string{"d", "c", "b", "a"} {
		fmt.Fprintf(&sql, "CREATE TABLE %s_rows (id INT NOT NULL PRIMARY KEY, grp INT NOT NULL);\n", e)
		for i := range 200 {
			fmt.Fprintf(&sql, "INSERT INTO %s_rows VALUES (%d, %d);\n", e, i, i/40)
		}
		fmt.Fprintf(&mapping, "  %s:\n    from: %s_rows\n    pk: \"G#{grp}\"\n    sk: \"%s#{id|pad:4}\"\n", e, e, strings.ToUpper(e))
	}
	eng.Exec(t, dsn, sql.String())
	p, src := compile(t, dsn, mapping.String())
	var reports [2][]byte
	for i := range reports {
		rep, err := analyze.Run(context.Background(), analyze.Options{Plan: p, Source: src, Readers: 4, RateLimit: 2000})
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Indexes[0].ByItems[0]; got.Key != "G#0" || got.Entity != "d" || got.Weight != 160 {
			t.Errorf("run %d: the largest partition %+v, want G#0 of entity d with 160 items", i, got)
		}
		if got := rep.Indexes[0].LongestRun; got == nil || got.Key != "G#0" || got.Entity != "d" || got.Items != 40 {
			t.Errorf("run %d: the longest run %+v, want 40 items of G#0, entity d", i, got)
		}
		if reports[i], err = json.Marshal(rep); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(reports[0], reports[1]) {
		t.Errorf("two runs with 4 readers differ:\n%s\n%s", reports[0], reports[1])
	}
}
