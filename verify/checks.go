package verify

import (
	"fmt"
)

// Check is one line of the report's table of checks, the shape the JUnit and
// Markdown renderings share: counts per entity, stray items, items per
// entity, access patterns.
type Check struct {
	Suite    string // "files", "counts", "items", "access patterns"
	Name     string
	OK       bool
	Skipped  bool
	Summary  string
	Problems *Problems
}

// Checks lists every check of the report, in its order.
func (r *Report) Checks() []Check {
	var out []Check
	if r.Files != nil {
		out = append(out, Check{Suite: "files", Name: r.Files.URL, OK: r.Files.OK, Summary: r.Files.Summary(), Problems: &r.Files.Problems})
	}
	for i := range r.Counts {
		c := &r.Counts[i]
		out = append(out, Check{Suite: "counts", Name: c.Entity, OK: c.OK, Summary: c.summary(), Problems: &c.Problems})
	}
	if len(r.Counts) > 0 || !r.Stray.OK() { // the table was scanned
		out = append(out, Check{Suite: "counts", Name: "stray items", OK: r.Stray.OK(), Summary: r.StraySummary(), Problems: &r.Stray})
	}
	if r.ItemsSkipped {
		out = append(out, Check{Suite: "items", Name: "items", OK: true, Skipped: true, Summary: "not compared (--skip-items)"})
	}
	for i := range r.Items {
		c := &r.Items[i]
		out = append(out, Check{Suite: "items", Name: c.Entity, OK: c.OK, Summary: itemSummary(c), Problems: &c.Problems})
	}
	for i := range r.Patterns {
		c := &r.Patterns[i]
		out = append(out, Check{Suite: "access patterns", Name: c.Name, OK: c.OK, Skipped: c.NotChecked, Summary: c.summary(), Problems: &c.Problems})
	}
	return out
}

func (c *CountCheck) summary() string {
	if c.NotCounted() {
		return fmt.Sprintf("rows not counted, %d items", c.Items)
	}
	if c.Rejected > 0 {
		return fmt.Sprintf("%d source rows - %d accepted rejects, %d items", c.Source, c.Rejected, c.Items)
	}
	return fmt.Sprintf("%d source rows, %d items", c.Source, c.Items)
}

// NotCounted is true when the entity's rows could not be counted.
func (c *CountCheck) NotCounted() bool {
	return len(c.Problems.List) > 0 && c.Problems.List[0].Kind == KindCheckError
}

// StraySummary says what the stray-item check counted.
func (r *Report) StraySummary() string {
	if r.ItemsSkipped {
		return fmt.Sprintf("%d items of no entity (items of an entity but of no row are found only with the item check)", r.Stray.Total)
	}
	return fmt.Sprintf("%d items of no entity or of no source row", r.Stray.Total)
}

func itemSummary(c *ItemCheck) string {
	return fmt.Sprintf("%d compared, %d missing, %d different, %d unrenderable", c.Compared, c.Missing, c.Different, c.Rejected) + c.SampleNote()
}

// SampleNote says how much of the entity a sampled item check compared, or
// nothing when it compared every row.
func (c *ItemCheck) SampleNote() string {
	if c.SampleRate <= 0 || c.SampleRate >= 1 {
		return ""
	}
	return fmt.Sprintf(" (sample rate %g: %d of %d rows)", c.SampleRate, c.Sampled, c.Rows)
}

func (c *PatternCheck) summary() string {
	if c.NotChecked {
		return "on " + c.Target + ": " + c.Note
	}
	s := fmt.Sprintf("on %s: %d samples, %d items", c.Target, c.Samples, c.Items)
	if c.Note != "" {
		s += " (" + c.Note + ")"
	}
	return s
}
