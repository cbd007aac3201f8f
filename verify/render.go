package verify

import (
	"fmt"
	"io"
	"strings"
)

// Format is a way to render a report.
type Format string

// The formats a report renders in.
const (
	FormatText     Format = "text"     // for people on a terminal
	FormatJSON     Format = "json"     // the report as data; its shape is versioned by ReportVersion
	FormatJUnit    Format = "junit"    // JUnit XML for CI test tabs: one testsuite per check kind
	FormatMarkdown Format = "markdown" // for a GitHub job summary ($GITHUB_STEP_SUMMARY) or a PR comment
)

// Formats lists every format.
var Formats = []Format{FormatText, FormatJSON, FormatJUnit, FormatMarkdown}

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown report format %q (formats: %s)", s, strings.Join(names, ", "))
}

// Write renders the report in the format.
func (r *Report) Write(w io.Writer, f Format) error {
	switch f {
	case FormatText:
		return r.WriteText(w)
	case FormatJSON:
		return r.WriteJSON(w)
	case FormatJUnit:
		return r.WriteJUnit(w)
	case FormatMarkdown:
		return r.WriteMarkdown(w)
	}
	_, err := ParseFormat(string(f))
	return err
}

// check is one line of the report's table of checks, the shape the JUnit and
// Markdown renderings share: counts per entity, stray items, items per
// entity, access patterns.
type check struct {
	suite    string // "counts", "items", "access patterns"
	name     string
	ok       bool
	skipped  bool
	summary  string
	problems *Problems
}

func (r *Report) checks() []check {
	var out []check
	if r.Files != nil {
		out = append(out, check{suite: "files", name: r.Files.URL, ok: r.Files.OK, summary: r.Files.summary(), problems: &r.Files.Problems})
	}
	for i := range r.Counts {
		c := &r.Counts[i]
		out = append(out, check{suite: "counts", name: c.Entity, ok: c.OK, summary: c.summary(), problems: &c.Problems})
	}
	if len(r.Counts) > 0 || !r.Stray.OK() { // the table was scanned
		out = append(out, check{suite: "counts", name: "stray items", ok: r.Stray.OK(), summary: r.straySummary(), problems: &r.Stray})
	}
	if r.ItemsSkipped {
		out = append(out, check{suite: "items", name: "items", ok: true, skipped: true, summary: "not compared (--skip-items)"})
	}
	for i := range r.Items {
		c := &r.Items[i]
		out = append(out, check{suite: "items", name: c.Entity, ok: c.OK, summary: itemSummary(c), problems: &c.Problems})
	}
	for i := range r.Patterns {
		c := &r.Patterns[i]
		out = append(out, check{suite: "access patterns", name: c.Name, ok: c.OK, skipped: c.NotChecked, summary: c.summary(), problems: &c.Problems})
	}
	return out
}

func (c *CountCheck) summary() string {
	if c.notCounted() {
		return fmt.Sprintf("rows not counted, %d items", c.Items)
	}
	if c.Rejected > 0 {
		return fmt.Sprintf("%d source rows - %d accepted rejects, %d items", c.Source, c.Rejected, c.Items)
	}
	return fmt.Sprintf("%d source rows, %d items", c.Source, c.Items)
}

// notCounted is true when the entity's rows could not be counted.
func (c *CountCheck) notCounted() bool {
	return len(c.Problems.List) > 0 && c.Problems.List[0].Kind == KindCheckError
}

func (r *Report) straySummary() string {
	if r.ItemsSkipped {
		return fmt.Sprintf("%d items of no entity (items of an entity but of no row are found only with the item check)", r.Stray.Total)
	}
	return fmt.Sprintf("%d items of no entity or of no source row", r.Stray.Total)
}

func itemSummary(c *ItemCheck) string {
	return fmt.Sprintf("%d compared, %d missing, %d different, %d unrenderable", c.Compared, c.Missing, c.Different, c.Rejected) + c.sampleNote()
}

// sampleNote says how much of the entity a sampled item check compared, or
// nothing when it compared every row.
func (c *ItemCheck) sampleNote() string {
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

func mark(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}
