package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/domain/followback"
	"github.com/remodel-dev/remodel/internal/domain/migrate"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/internal/domain/verify"
)

// Format is a way to render a result.
type Format string

// The formats.
const (
	Text     Format = "text"     // for people on a terminal
	JSON     Format = "json"     // the result as data; its shape is versioned by its "version" field
	JUnit    Format = "junit"    // JUnit XML for CI test tabs (verify): one testsuite per check kind
	Markdown Format = "markdown" // for a GitHub job summary ($GITHUB_STEP_SUMMARY) or a PR comment
)

// Formats lists the formats a result renders in: every result renders as
// text and JSON; verify's, migrate's and the analysis's also as Markdown,
// and verify's as JUnit (a test per check). A preview's Markdown is the
// modeling document (preview --document).
func Formats(result any) []Format {
	switch result.(type) {
	case *verify.Report:
		return []Format{Text, JSON, JUnit, Markdown}
	case *migrate.Report, *analyze.Report, *followback.Report:
		return []Format{Text, JSON, Markdown}
	}
	return []Format{Text, JSON}
}

// Write renders result (a *migrate.Report, *verify.Report,
// *analyze.Report, *preview.Result, *migrate.Status or *Validation) in
// format f.
func Write(w io.Writer, f Format, result any) error {
	if f == JSON {
		return WriteJSON(w, result)
	}
	switch r := result.(type) {
	case *verify.Report:
		switch f {
		case Text:
			return verifyText(w, r)
		case JUnit:
			return verifyJUnit(w, r)
		case Markdown:
			return verifyMarkdown(w, r)
		}
	case *migrate.Report:
		switch f {
		case Text:
			return migrateText(w, r)
		case Markdown:
			return migrateMarkdown(w, r)
		}
	case *analyze.Report:
		switch f {
		case Text:
			return analysisText(w, r)
		case Markdown:
			return analysisMarkdown(w, r)
		}
	case *followback.Report:
		switch f {
		case Text:
			return followBackText(w, r)
		case Markdown:
			return followBackMarkdown(w, r)
		}
	case *preview.Result:
		if f == Text {
			return previewText(w, r)
		}
	case *migrate.Status:
		if f == Text {
			return statusText(w, r)
		}
	case *Validation:
		if f == Text {
			return validationText(w, r)
		}
	default:
		return fmt.Errorf("report: no renderer for %T", result)
	}
	return fmt.Errorf("report: %T has no %s rendering (formats: %v)", result, f, Formats(result))
}

// WriteJSON writes v as indented JSON, HTML characters as they are (a
// report is not embedded in HTML). Every report carries its shape's version
// in its "version" field.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func mark(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
