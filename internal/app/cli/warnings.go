package cli

import (
	"errors"
	"fmt"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/mapping/warn"
)

// designWarnings are the design warnings of a valid mapping as the report
// lists them (an acknowledged one with its reason and line; validate's
// report renders them), and how many are not acknowledged.
func designWarnings(f *mapping.File, s *introspect.Schema) ([]report.Issue, int) {
	ws := warn.Warnings(f, s)
	out := make([]report.Issue, 0, len(ws))
	for _, w := range ws {
		is := report.Issue{File: w.File, Line: w.Line, Col: w.Col, Path: w.Path, Message: w.Msg, Code: w.Code}
		if w.Ack != nil {
			is.Acknowledged, is.AcknowledgedAt = w.Ack.Reason.Value, w.Ack.Line
		}
		out = append(out, is)
	}
	return out, len(warn.Unacknowledged(ws))
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
