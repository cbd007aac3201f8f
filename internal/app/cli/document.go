package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/remodel-dev/remodel/internal/app/document"
	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/domain/export"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/mapping"
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

// libraryExportSpecs reads preview --document's --export FORMAT=FILE flags
// (a data library's format, the file to write it to), adding to c what is
// wrong with them: an unknown format, no file, a format given twice.
func libraryExportSpecs(specs []string, c *checks) []outputFile {
	var out []outputFile
	seen := map[string]bool{}
	for _, spec := range specs {
		format, path, ok := strings.Cut(spec, "=")
		switch {
		case !ok || path == "" || path == "-":
			*c = append(*c, fmt.Sprintf("--export %s: give FORMAT=FILE (the file is linked from the document, so it is not stdout)", spec))
		case libraryExports[format] == nil || !document.LibraryFormat(format):
			*c = append(*c, fmt.Sprintf("--export %s: unknown format %q (electrodb, onetable or dynamodb-mcp)", spec, format))
		case seen[format]:
			*c = append(*c, fmt.Sprintf("--export %s: format %s is given twice", spec, format))
		default:
			seen[format] = true
			out = append(out, outputFile{format: format, path: path})
		}
	}
	return out
}

// writeLibraryFiles writes each data library file preview --document
// --export asks for (as export --output FORMAT writes it), printing what
// each format cannot express on stderr, and returns them as the document
// lists them: their paths relative to the document's folder.
func (a *app) writeLibraryFiles(docPath, mappingFile string, specs []outputFile, p *mapping.Plan) ([]document.LibraryFile, error) {
	var out []document.LibraryFile
	for _, spec := range specs {
		var b bytes.Buffer
		notes, err := libraryExports[spec.format](&b, p, export.Options{MappingFile: filepath.Base(mappingFile)})
		for _, n := range notes {
			fmt.Fprintf(a.stderr, "remodel: preview --export %s: not expressed: %s\n", spec.format, n)
		}
		if err != nil {
			return nil, fmt.Errorf("preview: --export %s: %w", spec.format, err)
		}
		if err := os.WriteFile(spec.path, b.Bytes(), 0o644); err != nil {
			return nil, fmt.Errorf("preview: writing --export %s: %w", spec.format, err)
		}
		fmt.Fprintf(a.stdout, "wrote %s (%s)\n", spec.path, spec.format)
		out = append(out, document.LibraryFile{Format: spec.format, Path: relativeTo(docPath, spec.path), NotExpressed: notes})
	}
	return out, nil
}

// relativeTo is path relative to the folder of the document docPath (the
// working directory for -, stdout), with / separators; the absolute path
// when there is no relative one.
func relativeTo(docPath, path string) string {
	dir := "."
	if docPath != "-" {
		dir = filepath.Dir(docPath)
	}
	target := abs(path)
	if rel, err := filepath.Rel(abs(dir), target); err == nil {
		target = rel
	}
	return filepath.ToSlash(target)
}
