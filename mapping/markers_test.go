package mapping

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"
)

// markersPlan is the personalization example with the edits made (old,
// new pairs).
func markersPlan(t *testing.T, edits ...string) *Plan {
	t.Helper()
	b, err := os.ReadFile("../examples/personalization/mapping.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(s, edits[i]) {
			t.Fatalf("the example no longer holds %q", edits[i])
		}
		s = strings.Replace(s, edits[i], edits[i+1], 1)
	}
	f, err := Parse("mapping.yaml", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(f, personalizationSchema())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMarkersItems renders the example's rows with every marker set (an
// ElectroDB version given, an entity attribute that is not _type): each
// item carries __edb_e__, __edb_v__, _type and version besides what it
// had, whole in testdata/personalization/items.markers.json; RenderSized
// counts their bytes (Render checks it in the tests), and a row read back
// needs them.
func TestMarkersItems(t *testing.T) {
	p := markersPlan(t, "entity_attribute: _type", "entity_attribute: kind\n  markers: [{electrodb: {version: \"2\"}}, onetable, version]")
	plain := personalizationPlan(t)
	want := []Marker{
		{Name: "__edb_e__", Set: "electrodb", Type: "S"},
		{Name: "__edb_v__", Set: "electrodb", Type: "S", Value: "2"},
		{Name: "_type", Set: "onetable", Type: "S"},
		{Name: "version", Set: "version", Type: "N", Value: "1"},
	}
	if !reflect.DeepEqual(p.Table.Markers, want) {
		t.Errorf("markers %+v, want %+v", p.Table.Markers, want)
	}
	if p.Table.ElectroDBVersion() != "2" || p.Table.OneTableTypeField() != "_type" || !p.Table.HasMarkers("version") {
		t.Errorf("ElectroDBVersion %q, OneTableTypeField %q", p.Table.ElectroDBVersion(), p.Table.OneTableTypeField())
	}
	if plain.Table.HasMarkers("electrodb") || plain.Table.HasMarkers("onetable") || plain.Table.OneTableTypeField() != "_type" || plain.Table.ElectroDBVersion() != "1" {
		t.Errorf("the example without markers has markers")
	}
	var b strings.Builder
	b.WriteString("[\n")
	for i, r := range personalizationRows {
		e := p.Entity(r.entity)
		item, size, err := e.RenderSized(r.row)
		if err != nil {
			t.Fatalf("%s row %d: %v", r.entity, i, err)
		}
		if size != ItemSize(item) {
			t.Errorf("%s row %d: RenderSized counts %d bytes, ItemSize %d", r.entity, i, size, ItemSize(item))
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(strings.TrimSuffix(wireJSON(t, item), "\n"))

		// The markers, and nothing else, are what the items add.
		bare, err := plain.Entity(r.entity).Render(r.row)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{
			"__edb_e__": fmt.Sprintf(`{"S":%q}`, r.entity), "__edb_v__": `{"S":"2"}`, "_type": fmt.Sprintf(`{"S":%q}`, r.entity),
			"kind": fmt.Sprintf(`{"S":%q}`, r.entity), "version": `{"N":"1"}`,
		} {
			if got := compactJSON(t, item[k]); got != v {
				t.Errorf("%s row %d: %s = %s, want %s", r.entity, i, k, got, v)
			}
		}
		// bare has _type (its entity attribute), the item kind and _type:
		// 4 attributes more, of these sizes.
		extra := len("__edb_e__") + len(r.entity) + len("__edb_v__") + 1 + len("kind") + len(r.entity) + len("version") + 2
		if len(item) != len(bare)+4 || ItemSize(item) != ItemSize(bare)+extra {
			t.Errorf("%s row %d: %d attributes of %d bytes, the item without markers %d of %d (+%d expected)", r.entity, i, len(item), ItemSize(item), len(bare), ItemSize(bare), extra)
		}

		// Read back: the item is the row's; without a marker it is not.
		if _, err := e.RowOf(item); err != nil {
			t.Errorf("%s row %d: RowOf: %v", r.entity, i, err)
		}
		for _, m := range []string{"__edb_e__", "version"} {
			less := Item{}
			for k, v := range item {
				if k != m {
					less[k] = v
				}
			}
			_, err := e.RowOf(less)
			if err == nil || !strings.Contains(err.Error(), "attribute "+m+" is missing") {
				t.Errorf("%s row %d without %s: RowOf says %v", r.entity, i, m, err)
			}
		}
	}
	b.WriteString("\n]\n")
	golden.Check(t, "personalization/items.markers.json", []byte(b.String()))

	// The markers are attributes of every entity, as described.
	var names []string
	for _, d := range p.Attributes(p.Entity("user")) {
		if d.Source == FromMarker {
			names = append(names, d.Name+":"+d.Type)
		}
	}
	if want := []string{"__edb_e__:S", "__edb_v__:S", "_type:S", "version:N"}; !reflect.DeepEqual(names, want) {
		t.Errorf("marker attributes %v, want %v", names, want)
	}
}

// TestMarkersEntityAttributeIsTheTypeField: with entity_attribute _type,
// the onetable markers add no attribute (the entity attribute is OneTable's
// type field), and electrodb's version is "1".
func TestMarkersEntityAttributeIsTheTypeField(t *testing.T) {
	p := markersPlan(t, "entity_attribute: _type", "entity_attribute: _type\n  markers: [onetable, electrodb]")
	want := []Marker{{Name: "__edb_e__", Set: "electrodb", Type: "S"}, {Name: "__edb_v__", Set: "electrodb", Type: "S", Value: "1"}}
	if !reflect.DeepEqual(p.Table.Markers, want) || !p.Table.HasMarkers("onetable") || p.Table.HasMarkers("version") || p.Table.OneTableTypeField() != "_type" {
		t.Errorf("markers %+v", p.Table.Markers)
	}
	item, err := p.Entity("user").Render(personalizationRows[0].row)
	if err != nil {
		t.Fatal(err)
	}
	if got := compactJSON(t, item); !strings.Contains(got, `"__edb_e__":{"S":"user"},"__edb_v__":{"S":"1"}`) || !strings.Contains(got, `"_type":{"S":"user"}`) || len(item) != 10 {
		t.Errorf("item %s", got)
	}
}

// TestMarkersCheck: validate without a source (Check) refuses an
// attribute named as a marker, like Compile (testdata/compile/markers_collide).
func TestMarkersCheck(t *testing.T) {
	f, err := ParseFile("testdata/compile/markers_collide.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = Check(f)
	if err == nil {
		t.Fatal("Check accepts attributes named as markers")
	}
	for _, want := range []string{
		"entities.user.attributes.rename.name: attribute __edb_v__ collides with the electrodb marker attribute (table.markers)",
		"entities.user.attributes.set.__edb_e__: attribute __edb_e__ collides with the electrodb marker attribute (table.markers)",
		"entities.thing.attributes.rename.code: attribute version collides with the version marker attribute (table.markers)",
		"table.markers: the onetable marker attribute _type is also a key of index ByType",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check does not say %q:\n%v", want, err)
		}
	}
}
