package cli

import (
	"context"
	"errors"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// describeQueries has the source describe the result columns of every
// entity's query and access pattern's params SQL and adds them to schema (Schema.Queries), for Compile to
// find: mapping itself never talks to the database. A query the database
// refuses is a problem at its field (at each entity's that has it), with
// the database's message; each query text is described once.
func describeQueries(ctx context.Context, src source.Source, f *mapping.File, schema *introspect.Schema) (mapping.ErrorList, error) {
	var problems mapping.ErrorList
	refused := map[string]string{} // query → the database's message
	for _, e := range f.Entities {
		q := e.Query.Value
		if q == "" {
			continue
		}
		msg, seen := refused[q]
		if !seen && schema.Query(q) == nil {
			cols, err := src.QueryColumns(ctx, q)
			var se *source.SQLError
			switch {
			case errors.As(err, &se):
				msg, refused[q] = se.Error(), se.Error()
			case err != nil:
				return nil, err
			default:
				schema.AddQuery(q, cols)
				continue
			}
		}
		if msg != "" {
			problems = append(problems, &mapping.Error{File: f.Name, Line: e.Query.Line, Col: e.Query.Col,
				Path: "entities." + e.Name.Value + ".query", Msg: "the source database refuses it: " + msg})
		}
	}
	// A params SQL is described too, so that its columns give the
	// parameters they sample their kind (a timestamp takes iso). One the
	// database refuses is left to validate's prepare, which reports it.
	for _, ap := range f.AccessPatterns {
		q := ap.Params.Value
		if q == "" || schema.Query(q) != nil {
			continue
		}
		cols, err := src.QueryColumns(ctx, q)
		var se *source.SQLError
		switch {
		case errors.As(err, &se):
		case err != nil:
			return nil, err
		default:
			schema.AddQuery(q, cols)
		}
	}
	return problems, nil
}
