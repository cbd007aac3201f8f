package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/mapping"
	"github.com/remodel-dev/remodel/internal/domain/preview"
)

// previewText prints the preview for people: the table definition, then per
// entity its key patterns and items, one JSON object per line.
func previewText(w io.Writer, r *preview.Result) error {
	t := r.Table
	fmt.Fprintf(w, "table %s: PK %s", t.Name, t.PK)
	if t.SK != "" {
		fmt.Fprintf(w, ", SK %s", t.SK)
	}
	fmt.Fprintf(w, ", entity attribute %s\n", t.EntityAttr)
	for _, ix := range t.Indexes {
		kind := "global"
		if ix.Local {
			kind = "local"
		}
		fmt.Fprintf(w, "  %s index %s: PK %s", kind, ix.Name, ix.PK)
		if ix.SK != "" {
			fmt.Fprintf(w, ", SK %s", ix.SK)
		}
		switch {
		case len(ix.Include) > 0:
			fmt.Fprintf(w, ", projects %s (%s)", ix.Projection, strings.Join(ix.Include, ", "))
		case ix.Projection != "" && ix.Projection != mapping.ProjectAll:
			fmt.Fprintf(w, ", projects %s", ix.Projection)
		}
		fmt.Fprintln(w)
	}
	for _, e := range r.Entities {
		fmt.Fprintf(w, "\nentity %s (from %s): PK = %s", e.Name, e.From, e.PK)
		if e.SK != "" {
			fmt.Fprintf(w, ", SK = %s", e.SK)
		}
		fmt.Fprintf(w, "  [%d items", len(e.Items))
		if len(e.Rejected) > 0 {
			fmt.Fprintf(w, ", %d rejected", len(e.Rejected))
		}
		fmt.Fprintln(w, "]")
		for _, it := range e.Items {
			fmt.Fprintf(w, "  %s\n", it)
		}
		for _, rj := range e.Rejected {
			fmt.Fprintf(w, "  rejected %s\n", rj)
		}
	}
	return nil
}
