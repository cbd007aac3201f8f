package cli

import (
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// unpopulatedProblems reports the entities that read a materialized view
// that has not been populated (created WITH NO DATA): PostgreSQL prepares
// a statement that reads it, and refuses to run it, so preview, migrate
// and verify would stop at the first read.
func unpopulatedProblems(f *mapping.File, schema *introspect.Schema) mapping.ErrorList {
	var out mapping.ErrorList
	check := func(from mapping.Str, path string) {
		if from.Value == "" {
			return // a query: entity
		}
		t, err := schema.Table(from.Value)
		if err != nil || !t.Unpopulated {
			return // an unknown table is Compile's to report
		}
		out = append(out, &mapping.Error{File: f.Name, Line: from.Line, Col: from.Col, Path: path,
			Msg: "materialized view " + t.QualifiedName() + " has not been populated (created WITH NO DATA): reading it fails; run REFRESH MATERIALIZED VIEW " + t.QualifiedName() + " first"})
	}
	for _, e := range f.Entities {
		check(e.From, "entities."+e.Name.Value+".from")
	}
	return out
}
