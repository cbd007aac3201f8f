package cli

import (
	"errors"
	"fmt"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
	"github.com/remodel-dev/remodel/internal/domain/mapping"
)

// warn prints the design warnings of a valid mapping on stderr, an
// acknowledged one with its reason, and returns how the summary line
// counts them ("", ", 3 warnings" or ", 3 warnings, 2 of them
// acknowledged") and how many are not acknowledged.
func (a *app) warn(f *mapping.File, s *introspect.Schema) (string, int) {
	ws := mapping.Warnings(f, s)
	for _, w := range ws {
		line := "remodel: " + w.String()
		if w.Ack != nil {
			line += fmt.Sprintf(" (acknowledged at line %d: %s)", w.Ack.Line, w.Ack.Reason.Value)
		}
		fmt.Fprintln(a.stderr, line)
	}
	open := len(mapping.Unacknowledged(ws))
	acked := len(ws) - open
	var out string
	switch len(ws) {
	case 0:
		return "", 0
	case 1:
		out = ", 1 warning"
	default:
		out = fmt.Sprintf(", %d warnings", len(ws))
	}
	switch {
	case acked == 1 && len(ws) == 1:
		out += ", acknowledged"
	case acked == len(ws):
		out += ", all acknowledged"
	case acked > 0:
		out += fmt.Sprintf(", %d of them acknowledged", acked)
	}
	return out, open
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
