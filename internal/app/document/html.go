package document

import (
	_ "embed"
	"html/template"
	"io"
	"strings"
)

//go:embed style.css
var css string

//go:embed document.html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("document").Funcs(template.FuncMap{
	"css":          func() template.CSS { return template.CSS(css) },
	"join":         strings.Join,
	"plural":       plural,
	"first":        firstItems,
	"maxGroupRows": func() int { return maxGroupRows },
	"maxGridRows":  func() int { return maxGridRows },
	"dash": func(s string) string {
		if s == "" {
			return "—"
		}
		return s
	},
	"toc": func(d *Document) []Section {
		var out []Section
		for _, e := range d.toc() {
			out = append(out, Section{ID: e.id, Title: e.title})
		}
		return out
	},
}).Parse(htmlSource))

// WriteHTML renders the document as one HTML file with its style sheet
// inside: no script, font or image is fetched, so it works offline and
// can be mailed or attached as it is. The ERD is drawn as one table per
// source table and a table of relationships, with Mermaid's source
// alongside.
func (d *Document) WriteHTML(w io.Writer) error {
	return htmlTemplate.Execute(w, d)
}
