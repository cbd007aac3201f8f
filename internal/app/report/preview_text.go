package report

import (
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/mapping"
)

// previewText prints the preview for people: the table definition, then per
// entity its key patterns and items, one JSON object per line.
func previewText(w *errWriter, r *preview.Result) {
	t := r.Table
	w.printf("table %s: PK %s", t.Name, t.PK)
	if t.SK != "" {
		w.printf(", SK %s", t.SK)
	}
	w.printf(", entity attribute %s\n", t.EntityAttr)
	for _, ix := range t.Indexes {
		kind := "global"
		if ix.Local {
			kind = "local"
		}
		w.printf("  %s index %s: PK %s", kind, ix.Name, ix.PK)
		if ix.SK != "" {
			w.printf(", SK %s", ix.SK)
		}
		switch {
		case len(ix.Include) > 0:
			w.printf(", projects %s (%s)", ix.Projection, strings.Join(ix.Include, ", "))
		case ix.Projection != "" && ix.Projection != mapping.ProjectAll:
			w.printf(", projects %s", ix.Projection)
		}
		w.printf("\n")
	}
	for _, e := range r.Entities {
		w.printf("\nentity %s (from %s): PK = %s", e.Name, e.From, e.PK)
		if e.SK != "" {
			w.printf(", SK = %s", e.SK)
		}
		w.printf("  [%d items", len(e.Items))
		if len(e.Rejected) > 0 {
			w.printf(", %d rejected", len(e.Rejected))
		}
		w.printf("]\n")
		for _, it := range e.Items {
			w.printf("  %s\n", it)
		}
		for _, rj := range e.Rejected {
			w.printf("  rejected %s\n", rj)
		}
	}
}
