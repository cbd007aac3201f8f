package report

import (
	"github.com/remodel-dev/remodel/verify"
)

// verifyText prints verify's report for people: one line per check, each
// followed by its problems.
func verifyText(w *errWriter, r *verify.Report) {
	p := w.printf
	switch {
	case r.Files != nil:
		p("verify %s files %s (table %s) against the %s source (seed %d)\n", mark(r.OK), r.Files.URL, r.Table, r.Engine, r.Seed)
	case r.Table == "": // the mapping could not be read: no table to name
		p("verify %s (seed %d)\n", mark(r.OK), r.Seed)
	case r.Engine != "":
		p("verify %s table %s against the %s source (seed %d)\n", mark(r.OK), r.Table, r.Engine, r.Seed)
	default:
		p("verify %s table %s (seed %d)\n", mark(r.OK), r.Table, r.Seed)
	}
	problems := func(ps *verify.Problems) {
		for _, l := range ps.Lines() {
			p("        %s\n", l)
		}
	}
	if r.Files != nil {
		p("files (the check is on migrate --to's objects, not on a table):\n  %s  %s  manifest %s: %s\n", mark(r.Files.OK), r.Files.URL, r.Files.Manifest, r.Files.Summary())
		problems(&r.Files.Problems)
	}
	if len(r.Counts) > 0 || !r.Stray.OK() {
		p("counts:\n")
	}
	for i := range r.Counts {
		c := &r.Counts[i]
		if c.NotCounted() {
			p("  %s  %-28s source rows %8s", mark(c.OK), c.Entity, "?")
		} else {
			p("  %s  %-28s source rows %8d", mark(c.OK), c.Entity, c.Source)
		}
		if c.Rejected > 0 {
			p("  accepted rejects %d", c.Rejected)
		}
		p("  items %8d\n", c.Items)
		problems(&c.Problems)
	}
	if !r.Stray.OK() {
		p("  FAIL  stray items: %s\n", r.StraySummary())
		problems(&r.Stray)
	}
	if r.ItemsSkipped {
		p("items: not compared (--skip-items)\n")
	}
	if len(r.Items) > 0 {
		p("items:\n")
		for i := range r.Items {
			c := &r.Items[i]
			p("  %s  %-28s compared %8d  missing %d  different %d  unrenderable %d%s\n", mark(c.OK), c.Entity, c.Compared, c.Missing, c.Different, c.Rejected, c.SampleNote())
			problems(&c.Problems)
		}
	}
	if r.Rejects != nil {
		p("accepted rejects: %d rows of %s, rejected by migrate, are expected to have no item\n", r.Rejects.Total, r.Rejects.File)
		for _, rj := range r.Rejects.Rows {
			p("        entity %s, row %s: %s\n", rj.Entity, rj.Row, rj.Reason)
		}
		if n := r.Rejects.Total - int64(len(r.Rejects.Rows)); n > 0 {
			p("        … and %d more\n", n)
		}
	}
	if len(r.Patterns) > 0 {
		p("access patterns:\n")
	}
	for i := range r.Patterns {
		c := &r.Patterns[i]
		if c.NotChecked {
			p("  SKIP  %-44s on %-12s %s\n", c.Name, c.Target, c.Note)
			continue
		}
		p("  %s  %-44s on %-12s %3d samples, %6d items", mark(c.OK), c.Name, c.Target, c.Samples, c.Items)
		if c.Note != "" {
			p("  (%s)", c.Note)
		}
		p("\n")
		problems(&c.Problems)
	}
	if r.Warning != "" {
		p("warning: %s\n", r.Warning)
	}
	if r.Error != "" {
		p("error: verify could not finish: %s\n", r.Error)
	}
	p("took %.2fs\n", r.Seconds)
}
