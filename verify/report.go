package verify

import (
	"fmt"
	"io"
)

// WriteText prints the report for people: one line per check, then the
// problems found.
func (r *Report) WriteText(w io.Writer) {
	mark := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	fmt.Fprintf(w, "verify %s table %s against the %s source\n", mark(r.OK), r.Table, r.Engine)
	fmt.Fprintln(w, "counts:")
	for _, c := range r.Counts {
		fmt.Fprintf(w, "  %s  %-28s source rows %8d  items %8d\n", mark(c.OK), c.Entity, c.Source, c.Items)
	}
	if r.Stray.Count > 0 {
		fmt.Fprintf(w, "  FAIL  %d items belong to no entity of the mapping, e.g. %v\n", r.Stray.Count, r.Stray.Examples)
	}
	if len(r.Items) > 0 {
		fmt.Fprintln(w, "items:")
		for _, c := range r.Items {
			fmt.Fprintf(w, "  %s  %-28s compared %8d  missing %d  different %d  unrenderable %d\n", mark(c.OK), c.Entity, c.Compared, c.Missing, c.Different, c.Rejected)
			for _, p := range c.Problems.Lines() {
				fmt.Fprintf(w, "        %s\n", p)
			}
		}
	}
	fmt.Fprintln(w, "access patterns:")
	for _, c := range r.Patterns {
		fmt.Fprintf(w, "  %s  %-44s on %-12s %3d samples, %6d items", mark(c.OK), c.Name, c.Target, c.Samples, c.Items)
		if c.Note != "" {
			fmt.Fprintf(w, "  (%s)", c.Note)
		}
		fmt.Fprintln(w)
		for _, p := range c.Problems {
			fmt.Fprintf(w, "        %s\n", p)
		}
	}
	if r.Warning != "" {
		fmt.Fprintf(w, "warning: %s\n", r.Warning)
	}
	fmt.Fprintf(w, "took %.2fs\n", r.Seconds)
}
