package cli

import (
	"errors"
	"fmt"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/introspect"
	"github.com/remodel-dev/remodel/internal/domain/mapping"
)

// warn prints the design warnings of a valid mapping on stderr, an
// acknowledged one with its reason, and returns them as the report lists
// them and how many are not acknowledged.
func (a *app) warn(f *mapping.File, s *introspect.Schema) ([]report.Issue, int) {
	ws := mapping.Warnings(f, s)
	out := make([]report.Issue, 0, len(ws))
	for _, w := range ws {
		line := "remodel: " + w.String()
		is := report.Issue{File: w.File, Line: w.Line, Col: w.Col, Path: w.Path, Message: w.Msg, Code: w.Code}
		if w.Ack != nil {
			line += fmt.Sprintf(" (acknowledged at line %d: %s)", w.Ack.Line, w.Ack.Reason.Value)
			is.Acknowledged = w.Ack.Reason.Value
		}
		fmt.Fprintln(a.stderr, line)
		out = append(out, is)
	}
	return out, len(mapping.Unacknowledged(ws))
}

// strictly fails validate --strict when there were warnings that no
// acknowledgement in the mapping matches.
func strictly(strict bool, open int) error {
	if !strict || open == 0 {
		return nil
	}
	what := "1 warning"
	if open > 1 {
		what = fmt.Sprintf("%d warnings", open)
	}
	return failedError{errors.New("validate --strict: the mapping has " + what + " that no acknowledgement matches (acknowledge: in the mapping, with a reason, those the design intends)")}
}
