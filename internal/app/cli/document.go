package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/remodel-dev/remodel/internal/app/document"
	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/domain/mapping"
	"github.com/remodel-dev/remodel/internal/domain/preview"
)

// documentFormat is the format of preview --document's file, from its
// extension: "markdown" for .md and .markdown (and "-", stdout), "html"
// for .html and .htm.
func documentFormat(path string) (string, error) {
	if path == "-" {
		return "markdown", nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return "markdown", nil
	case ".html", ".htm":
		return "html", nil
	}
	return "", usagef("--document %s: the file must end in .md (Markdown) or .html (one self-contained HTML file), or be - for Markdown on stdout", path)
}

// writeDocument builds the modeling document of a preview, with the
// analysis when rep is not nil, and writes it to path in the format its
// extension says (- is stdout).
func (a *app) writeDocument(path, format, mappingFile string, o document.Options, p *mapping.Plan, res *preview.Result, rep *analyze.Report) error {
	o.MappingFile = filepath.Base(mappingFile)
	// The file's comments (init's reasons) go into the document; the
	// mapping was read a moment ago, so a failure here only loses them.
	if src, err := os.ReadFile(mappingFile); err == nil {
		o.MappingSource = src
	}
	d := document.Build(p, res, o)
	with := ""
	if rep != nil {
		d.AddAnalysis(rep)
		with = "; the analysis and cost of every row"
		if rep.SampleRate < 1 {
			with = "; the analysis and cost of a sample of the rows"
		}
	}
	render := d.WriteMarkdown
	if format == "html" {
		render = d.WriteHTML
	}
	if path == "-" {
		return render(a.stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("preview: writing the document: %w", err)
	}
	if err := render(f); err != nil {
		f.Close()
		return fmt.Errorf("preview: writing the document %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("preview: writing the document %s: %w", path, err)
	}
	fmt.Fprintf(a.stdout, "wrote the modeling document %s (%s: %d entities, %d access patterns, the item collections of %d partitions%s)\n",
		path, format, len(d.Entities), len(d.Patterns), len(o.Partitions), with)
	return nil
}
