package report

import (
	"fmt"
	"html"
	"html/template"
	"strings"
	"text/tabwriter"
	"unicode"
)

// Block is one heading, paragraph, list or table of a report's section,
// rendered the same way into text, Markdown and HTML.
type Block struct {
	Heading string // an h3; a line of its own in text
	Para    string
	List    []string
	Table   *Table
	// Aside is for the document only: the text report leaves it out (a
	// long note a terminal need not show every time).
	Aside bool
}

// Table is a table of figures: a class for the HTML, a header row and rows
// of text.
type Table struct {
	Class string
	Head  []string
	Rows  [][]string
}

// BlocksMarkdown renders blocks as Markdown (headings at level 3).
func BlocksMarkdown(bs []Block) string {
	var b strings.Builder
	for i, x := range bs {
		if i > 0 {
			b.WriteString("\n")
		}
		switch {
		case x.Heading != "":
			fmt.Fprintf(&b, "### %s\n", x.Heading)
		case x.Para != "":
			fmt.Fprintf(&b, "%s\n", MarkdownCell(x.Para))
		case x.List != nil:
			for _, it := range x.List {
				fmt.Fprintf(&b, "- %s\n", MarkdownCell(it))
			}
		case x.Table != nil:
			row := func(cells []string) {
				b.WriteString("|")
				for _, c := range cells {
					fmt.Fprintf(&b, " %s |", MarkdownCell(c))
				}
				b.WriteString("\n")
			}
			row(x.Table.Head)
			b.WriteString(strings.Repeat("|---", len(x.Table.Head)) + "|\n")
			for _, r := range x.Table.Rows {
				row(r)
			}
		}
	}
	return b.String()
}

// BlocksHTML renders blocks as HTML (headings as h3, tables with their
// class).
func BlocksHTML(bs []Block) template.HTML {
	var b strings.Builder
	e := html.EscapeString
	for _, x := range bs {
		switch {
		case x.Heading != "":
			fmt.Fprintf(&b, "<h3>%s</h3>\n", e(x.Heading))
		case x.Para != "":
			fmt.Fprintf(&b, "<p>%s</p>\n", e(x.Para))
		case x.List != nil:
			b.WriteString("<ul>")
			for _, it := range x.List {
				fmt.Fprintf(&b, "<li>%s</li>", e(it))
			}
			b.WriteString("</ul>\n")
		case x.Table != nil:
			fmt.Fprintf(&b, "<table class=\"%s\">\n<tr>", e(x.Table.Class))
			for _, h := range x.Table.Head {
				fmt.Fprintf(&b, "<th>%s</th>", e(h))
			}
			b.WriteString("</tr>\n")
			for _, r := range x.Table.Rows {
				b.WriteString("<tr>")
				for _, c := range r {
					fmt.Fprintf(&b, "<td>%s</td>", e(c))
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</table>\n")
		}
	}
	return template.HTML(b.String())
}

// blocksText renders blocks for a terminal: a heading on a line of its own
// after an empty line, paragraphs on a line each, indented by two spaces, list
// items as "  - ", tables in aligned columns.
func blocksText(w *errWriter, bs []Block) {
	for _, x := range bs {
		switch {
		case x.Aside:
		case x.Heading != "":
			w.printf("\n%s\n", x.Heading)
		case x.Para != "":
			w.printf("  %s\n", x.Para)
		case x.List != nil:
			for _, it := range x.List {
				w.printf("  - %s\n", it)
			}
		case x.Table != nil:
			tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
			row := func(cells []string) {
				_, _ = fmt.Fprintf(tw, "  %s\n", strings.TrimRight(strings.Join(cells, "\t"), "\t"))
			}
			row(x.Table.Head)
			for _, r := range x.Table.Rows {
				row(r)
			}
			_ = tw.Flush() // its error is the write's, kept in w
		}
	}
}

// MarkdownCell makes text safe in a Markdown table cell, and shows it as written:
// no line breaks, pipes escaped, and the characters that Markdown reads as
// emphasis, code, links or HTML escaped (an underscore only at the edge of
// a word: inside one it is plain text).
func MarkdownCell(s string) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	var b strings.Builder
	word := func(i int) bool {
		return i >= 0 && i < len(r) && (unicode.IsLetter(r[i]) || unicode.IsDigit(r[i]))
	}
	for i, c := range r {
		switch {
		case strings.ContainsRune("\\*`[]<>~|", c):
			b.WriteByte('\\')
		case c == '_' && !(word(i-1) && word(i+1)):
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// MarkdownCode is inline code that survives any backticks in s.
func MarkdownCode(s string) string {
	s = strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
	if s == "" {
		return "—"
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
