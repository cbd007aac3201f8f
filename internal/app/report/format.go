package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/domain/followback"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
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
// *analyze.Report, *followback.Report, *preview.Result, *migrate.Status
// or *Validation) in format f, and returns the first error writing to w
// (a full disk, a closed pipe): every renderer writes through one
// errWriter, and this is where its error is returned.
func Write(w io.Writer, f Format, result any) error {
	ew := &errWriter{w: w}
	if err := render(ew, f, result); err != nil {
		return err
	}
	return ew.err
}

// render writes result in format f to w, or says that it has no such
// rendering (before writing anything).
func render(w *errWriter, f Format, result any) error {
	if f == JSON {
		return WriteJSON(w, result)
	}
	switch r := result.(type) {
	case *verify.Report:
		switch f {
		case Text:
			return rendered(verifyText, w, r)
		case JUnit:
			return rendered(verifyJUnit, w, r)
		case Markdown:
			return rendered(verifyMarkdown, w, r)
		}
	case *migrate.Report:
		switch f {
		case Text:
			return rendered(migrateText, w, r)
		case Markdown:
			return rendered(migrateMarkdown, w, r)
		}
	case *analyze.Report:
		switch f {
		case Text:
			return rendered(analysisText, w, r)
		case Markdown:
			return rendered(analysisMarkdown, w, r)
		}
	case *followback.Report:
		switch f {
		case Text:
			return rendered(followBackText, w, r)
		case Markdown:
			return rendered(followBackMarkdown, w, r)
		}
	case *preview.Result:
		if f == Text {
			return rendered(previewText, w, r)
		}
	case *migrate.Status:
		if f == Text {
			return rendered(statusText, w, r)
		}
	case *Validation:
		if f == Text {
			return rendered(validationText, w, r)
		}
	default:
		return fmt.Errorf("report: no renderer for %T", result)
	}
	return fmt.Errorf("report: %T has no %s rendering (formats: %v)", result, f, Formats(result))
}

// rendered runs a renderer on r: what it writes, and its errors, are in w.
func rendered[R any](render func(*errWriter, R), w *errWriter, r R) error {
	render(w, r)
	return nil
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

// errWriter is the one writer every renderer writes through (Write makes
// one per call): it keeps the first error of the writer under it, a write
// that writes less than it was given included, and writes nothing after
// it. A renderer prints without checking each line; Write returns the
// error.
type errWriter struct {
	w   io.Writer
	err error
}

// Write writes p to the writer under e, unless an earlier write failed.
func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	e.err = err
	return n, err
}

// printf writes a formatted text; an error is kept in e.err.
func (e *errWriter) printf(format string, args ...any) {
	_, _ = fmt.Fprintf(e, format, args...)
}

// fail keeps err, an error of a renderer's own (not of a write), unless an
// earlier one is kept.
func (e *errWriter) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}
