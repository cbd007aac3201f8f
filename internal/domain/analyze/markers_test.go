package analyze_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestMarkersCounted analyses the personalization example with and without
// table.markers: every item of an entity is larger by exactly its markers'
// bytes (__edb_e__ and _type hold the entity's name, __edb_v__ "1",
// version the number 1), and its write units (mapping.WriteUnits) are at
// least as many.
func TestMarkersCounted(t *testing.T) {
	eng := testenv.Engines[0]
	dsn := eng.Fresh(t)
	testenv.LoadExample(t, eng.Name, dsn, "../../../examples/personalization")
	b, err := os.ReadFile("../../../examples/personalization/mapping.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plain := string(b)
	marked := strings.Replace(plain, "entity_attribute: _type", "entity_attribute: kind\n  markers: [electrodb, onetable, version]", 1)
	if marked == plain {
		t.Fatal("the example mapping changed; update this test's replacement")
	}
	run := func(yaml string) map[string]analyze.EntityStats {
		p, src := compile(t, dsn, yaml)
		rep, err := analyze.Run(context.Background(), analyze.Options{Plan: p, Source: src})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]analyze.EntityStats{}
		for _, e := range rep.Entities {
			out[e.Name] = e
		}
		return out
	}
	without, with := run(plain), run(marked)
	if len(with) != 5 {
		t.Fatalf("%d entities", len(with))
	}
	for name, w := range with {
		o := without[name]
		// _type → kind: the entity attribute's name is 1 byte shorter.
		extra := int64(len("__edb_e__")+len(name)+len("__edb_v__")+1+len("_type")+len(name)+len("version")+2) - 1
		if w.Items != o.Items || w.Sizes.Bytes != o.Sizes.Bytes+extra*w.Items || w.Sizes.Max != o.Sizes.Max+extra {
			t.Errorf("%s: %d items of %d bytes (max %d), without markers %d of %d (max %d): want %d bytes more each", name, w.Items, w.Sizes.Bytes, w.Sizes.Max, o.Items, o.Sizes.Bytes, o.Sizes.Max, extra)
		}
		if w.WriteUnits < o.WriteUnits || w.Sizes.Max <= 1024 && w.WriteUnits != w.Items {
			t.Errorf("%s: %d write units for %d items of at most %d bytes, %d without markers", name, w.WriteUnits, w.Items, w.Sizes.Max, o.WriteUnits)
		}
	}
}
