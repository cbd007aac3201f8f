package verify

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the report as indented JSON. Its shape is versioned by
// ReportVersion (the "version" field); see docs/verify.md.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
