package report

import (
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/verify"
)

// verifyMarkdown writes the report as GitHub-flavoured Markdown for a job
// summary: a headline, a table of every check, and the problems of the
// failed checks (and the accepted rejects) in collapsed details blocks.
func verifyMarkdown(w *errWriter, r *verify.Report) {
	p := w.printf
	icon := func(ok bool) string {
		if ok {
			return "✅"
		}
		return "❌"
	}
	p("### %s remodel verify: %s\n\n", icon(r.OK), mark(r.OK))
	switch {
	case r.Files != nil:
		p("Files %s (table %s, not a table: the check is on migrate --to's objects) against the %s source, seed %d, %.1f s.\n\n", MarkdownCode(r.Files.URL), MarkdownCode(r.Table), r.Engine, r.Seed, r.Seconds)
	case r.Table == "": // the mapping could not be read: no table to name
		p("Seed %d, %.1f s.\n\n", r.Seed, r.Seconds)
	case r.Engine != "":
		p("Table %s against the %s source, seed %d, %.1f s.\n\n", MarkdownCode(r.Table), r.Engine, r.Seed, r.Seconds)
	default:
		p("Table %s, seed %d, %.1f s.\n\n", MarkdownCode(r.Table), r.Seed, r.Seconds)
	}
	if r.Error != "" {
		p("> **verify could not finish:** %s\n\n", MarkdownCell(r.Error))
	}
	if r.Warning != "" {
		p("> **warning:** %s\n\n", MarkdownCell(r.Warning))
	}
	checks := r.Checks()
	p("| | check | name | result |\n|---|---|---|---|\n")
	for _, c := range checks {
		mk := icon(c.OK)
		if c.Skipped {
			mk = "➖"
		}
		p("| %s | %s | %s | %s |\n", mk, c.Suite, MarkdownCell(c.Name), MarkdownCell(c.Summary))
	}
	p("\n")
	var failed []verify.Check
	var total int64
	for _, c := range checks {
		if !c.OK && c.Problems != nil && c.Problems.Total > 0 {
			failed = append(failed, c)
			total += c.Problems.Total
		}
	}
	if len(failed) > 0 {
		p("<details><summary>%d problems in %d checks</summary>\n\n", total, len(failed))
		for _, c := range failed {
			p("**%s · %s** (%d)\n\n", c.Suite, MarkdownCell(c.Name), c.Problems.Total)
			fenced(p, c.Problems.Lines())
		}
		p("</details>\n\n")
	}
	if r.Rejects != nil {
		p("<details><summary>%d rows accepted as rejected (%s)</summary>\n\n", r.Rejects.Total, MarkdownCell(r.Rejects.File))
		lines := make([]string, 0, len(r.Rejects.Rows)+1)
		for _, rj := range r.Rejects.Rows {
			lines = append(lines, fmt.Sprintf("entity %s, row %s: %s", rj.Entity, rj.Row, rj.Reason))
		}
		if n := r.Rejects.Total - int64(len(r.Rejects.Rows)); n > 0 {
			lines = append(lines, fmt.Sprintf("… and %d more", n))
		}
		fenced(p, lines)
		p("</details>\n\n")
	}
}

// fenced writes lines as a text code block, with a fence longer than any
// run of backticks in them.
func fenced(p func(string, ...any), lines []string) {
	body := strings.Join(lines, "\n")
	fence := "```"
	for strings.Contains(body, fence) {
		fence += "`"
	}
	p("%stext\n%s\n%s\n\n", fence, body, fence)
}
