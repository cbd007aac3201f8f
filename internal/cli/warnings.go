package cli

import (
	"errors"
	"fmt"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// warn prints the design warnings of a valid mapping on stderr and returns
// how the summary line counts them: "" or ", 3 warnings".
func (a *app) warn(f *mapping.File, s *introspect.Schema) string {
	ws := mapping.Warnings(f, s)
	for _, w := range ws {
		fmt.Fprintln(a.stderr, "remodel: "+w.String())
	}
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ", 1 warning"
	}
	return fmt.Sprintf(", %d warnings", len(ws))
}

// strictly fails validate --strict when there were warnings.
func strictly(strict bool, warned string) error {
	if !strict || warned == "" {
		return nil
	}
	return failedError{errors.New("validate --strict: the mapping has warnings" + warned[1:])}
}
