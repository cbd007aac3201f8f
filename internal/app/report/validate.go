package report

import (
	"fmt"
	"io"
)

// ValidationVersion is the version of validate's JSON shape; it changes
// only when a field changes meaning or goes.
const ValidationVersion = 1

// Validation is remodel validate's result: the mapping file checked on its
// own, or against each source given (one per engine).
type Validation struct {
	Version        int    `json:"version"` // ValidationVersion
	Mapping        string `json:"mapping"`
	Entities       int    `json:"entities"`
	AccessPatterns int    `json:"access_patterns"`
	// Valid is true when no check found a problem (warnings aside).
	Valid bool `json:"valid"`
	// Strict is validate --strict: then a warning no acknowledgement
	// matches fails too.
	Strict bool `json:"strict,omitempty"`
	// Problems are the mapping file's problems found without a source
	// (it does not parse, or fails its own checks).
	Problems []Issue `json:"problems,omitempty"`
	// Checks are one per source, or one of the file on its own.
	Checks []*ValidationCheck `json:"checks"`
	// Error is why validate could not finish (the file unreadable, a
	// source unreachable); exit status 3.
	Error string `json:"error,omitempty"`
}

// ValidationCheck is the mapping checked against one source (Engine and
// Database), or on its own (Engine "").
type ValidationCheck struct {
	Engine   string  `json:"engine,omitempty"`
	Database string  `json:"database,omitempty"`
	Valid    bool    `json:"valid"`
	Problems []Issue `json:"problems,omitempty"`
	Warnings []Issue `json:"warnings,omitempty"`
	// KeyCheck says whether migrate's key collision check is needed, and
	// why (with a source, once the mapping is valid).
	KeyCheck *KeyCheck `json:"key_collision_check,omitempty"`
	// Follow says which entities migrate --follow follows.
	Follow string `json:"follow,omitempty"`
	// FollowBack says which entities follow-back writes back, and why not the others.
	FollowBack string `json:"follow_back,omitempty"`
	Error      string `json:"error,omitempty"`
}

// KeyCheck is whether migrate's key collision check is needed: Text is the
// line validate prints, and the lines of its reasons.
type KeyCheck struct {
	Needed bool   `json:"needed"`
	Text   string `json:"text"`
}

// Issue is a problem or a warning at a place of the mapping file.
type Issue struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	// Code is a warning's ([sparse-when]); Acknowledged the reason of the
	// acknowledgement in the mapping that matches it.
	Code         string `json:"code,omitempty"`
	Acknowledged string `json:"acknowledged,omitempty"`
	// AcknowledgedAt is the line of that acknowledgement (the warning
	// lines name it; the JSON does not).
	AcknowledgedAt int `json:"-"`
}

// WriteValidationWarnings writes the design warnings of every check of v
// as validate prints them on stderr, a line each, as a compiler's are
// (remodel: file:line:col: warning: path: message [code]), an
// acknowledged one with its line and reason; it returns the first write
// error. Problems are not among them: they are the command's error.
func WriteValidationWarnings(w io.Writer, v *Validation) error {
	ew := &errWriter{w: w}
	for _, c := range v.Checks {
		for _, is := range c.Warnings {
			ew.printf("remodel: %s\n", is.warningLine())
		}
	}
	return ew.err
}

// warningLine is a warning as a line of text: where, what and its code,
// and the acknowledgement that matches it.
func (is Issue) warningLine() string {
	at := is.File
	if is.Line > 0 {
		at += fmt.Sprintf(":%d:%d", is.Line, is.Col)
	}
	msg := is.Message
	if is.Path != "" {
		msg = is.Path + ": " + msg
	}
	line := fmt.Sprintf("%s: warning: %s [%s]", at, msg, is.Code)
	if is.Acknowledged != "" {
		line += fmt.Sprintf(" (acknowledged at line %d: %s)", is.AcknowledgedAt, is.Acknowledged)
	}
	return line
}

// validationText renders what validate prints on stdout: for each check
// that passed, the summary line, and with a source whether migrate needs
// its key collision check and what --follow and follow-back follow.
// Warnings go to stderr (WriteValidationWarnings), problems as the
// command's error.
func validationText(ew *errWriter, v *Validation) {
	for _, c := range v.Checks {
		if !c.Valid || c.Error != "" {
			continue
		}
		warned := warnedSuffix(c.Warnings)
		if c.Engine == "" {
			ew.printf("%s: valid on its own (%d entities, %d access patterns%s); give --source to check it against the database\n", v.Mapping, v.Entities, v.AccessPatterns, warned)
			continue
		}
		ew.printf("%s: valid against %s database %s (%d entities, %d access patterns%s; every where and SQL prepared)\n", v.Mapping, c.Engine, c.Database, v.Entities, v.AccessPatterns, warned)
		if c.KeyCheck != nil {
			ew.printf("%s\n", c.KeyCheck.Text)
		}
		if c.Follow != "" {
			ew.printf("%s\n", c.Follow)
		}
		if c.FollowBack != "" {
			ew.printf("%s\n", c.FollowBack)
		}
	}
}

// warnedSuffix is how the summary line counts the warnings: "", ", 3
// warnings" or ", 3 warnings, 2 of them acknowledged".
func warnedSuffix(ws []Issue) string {
	acked := 0
	for _, w := range ws {
		if w.Acknowledged != "" {
			acked++
		}
	}
	var out string
	switch len(ws) {
	case 0:
		return ""
	case 1:
		out = ", 1 warning"
	default:
		out = fmt.Sprintf(", %d warnings", len(ws))
	}
	switch {
	case acked == 1 && len(ws) == 1:
		out += ", acknowledged"
	case acked == len(ws):
		out += ", all acknowledged"
	case acked > 0:
		out += fmt.Sprintf(", %d of them acknowledged", acked)
	}
	return out
}
