package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// keyColumnProblems has the source describe the result columns of every
// access pattern's SQL (prepared, not run) and reports the SQL that does
// not return every column its entity's table key is rendered from: verify
// could not tell which item each row is. A statement the source cannot
// describe is left alone: prepareAll reports the one it refuses.
func keyColumnProblems(ctx context.Context, src source.Source, plan *mapping.Plan) (mapping.ErrorList, error) {
	var out mapping.ErrorList
	placeholder := func(i int) string { return source.Placeholder(src.Engine(), i) }
	for _, ap := range plan.AccessPatterns {
		for _, q := range ap.Queries {
			text, params := q.SQL.Text(placeholder)
			cols, err := src.ResultColumns(ctx, text, len(params))
			var se *source.SQLError
			switch {
			case errors.As(err, &se):
				continue
			case err != nil:
				return nil, fmt.Errorf("checking the columns of access pattern %s: %w", ap.Name, err)
			}
			missing := q.Entity.MissingKeyColumns(cols)
			if len(missing) == 0 {
				continue
			}
			what := "column " + missing[0]
			if len(missing) > 1 {
				what = "columns " + strings.Join(missing, ", ")
			}
			out = append(out, &mapping.Error{File: plan.File.Name, Line: q.Pos.Line, Col: q.Pos.Col, Path: q.Path,
				Msg: fmt.Sprintf("the SQL returns no %s, which entity %s's key needs (it returns %s): select them so that each row names its item", what, q.Entity.Name, strings.Join(cols, ", "))})
		}
	}
	return out, nil
}
