package verify_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestVerifyMarkers migrates the example with every marker set
// (table.markers): verify passes, and an item without one of its markers,
// or with another value in one, differs from the row's.
func TestVerifyMarkers(t *testing.T) {
	eng := testenv.Engines[0]
	m := strings.Replace(exampleMapping(t), "entity_attribute: _type", "entity_attribute: kind\n  markers: [electrodb, onetable, version]", 1)
	if !strings.Contains(m, "markers:") {
		t.Fatal("the example mapping changed; update this test's replacement")
	}
	o := migrated(t, eng.Name, eng.Fresh, m)
	it := getItem(t, o, "USER#7", "USER#")
	for k, want := range map[string]string{"__edb_e__": "user", "__edb_v__": "1", "_type": "user", "kind": "user"} {
		if s, ok := it[k].(*types.AttributeValueMemberS); !ok || s.Value != want {
			t.Errorf("migrated item: %s = %#v, want %q", k, it[k], want)
		}
	}
	if n, ok := it["version"].(*types.AttributeValueMemberN); !ok || n.Value != "1" {
		t.Errorf("migrated item: version = %#v, want 1", it["version"])
	}
	if rep := run(t, o); !rep.OK {
		t.Fatalf("verify failed on an untouched migration with markers:\n%s", text(rep))
	}
	for _, name := range []string{"__edb_e__", "_type", "version"} {
		breakItem(t, o, "USER#7", "USER#", "user_id=7", "without "+name, func(item map[string]types.AttributeValue) { delete(item, name) }, name, "")
	}
	breakItem(t, o, "USER#7", "USER#", "user_id=7", "__edb_v__ 2", func(item map[string]types.AttributeValue) {
		item["__edb_v__"] = &types.AttributeValueMemberS{Value: "2"}
	}, "__edb_v__", "")
}
