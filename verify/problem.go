package verify

import (
	"fmt"
	"strings"
)

// ReportVersion is the version of the report's JSON shape. It changes only
// when a field is removed or changes meaning; new fields do not change it.
const ReportVersion = 1

// Kind names what kind of problem verify found. The values are part of the
// JSON report's contract.
type Kind string

// The problems verify reports.
const (
	// KindCount: an entity's source row count differs from its item count.
	KindCount Kind = "count_mismatch"
	// KindMissing: a source row's item is not in the table.
	KindMissing Kind = "missing_item"
	// KindDifferent: a stored item differs from what its row should have
	// become (Attribute, Want and Got say how; one problem per attribute).
	KindDifferent Kind = "different_item"
	// KindStray: an item of the table belongs to no source row.
	KindStray Kind = "stray_item"
	// KindUnrenderable: a source row cannot become an item (and was not
	// accepted as rejected with --rejects).
	KindUnrenderable Kind = "unrenderable_row"
	// KindDuplicateKey: two source rows render the same item key.
	KindDuplicateKey Kind = "duplicate_key"
	// KindRejectedPresent: a row the rejects file names is in the table.
	KindRejectedPresent Kind = "rejected_row_present"
	// KindQueryMissing: an access pattern's Query misses an item its SQL returns.
	KindQueryMissing Kind = "query_misses_item"
	// KindQueryExtra: an access pattern's Query returns an item its SQL does not.
	KindQueryExtra Kind = "query_returns_extra_item"
	// KindQueryOrder: an ordered access pattern returns items in another order.
	KindQueryOrder Kind = "query_order"
	// KindPatternError: an access pattern could not be checked (its SQL
	// failed, its key could not be built, the Query failed).
	KindPatternError Kind = "pattern_error"
	// KindValueMismatch: the independent check (the source engine's own
	// JSON rendering of the row) disagrees with a stored attribute.
	KindValueMismatch Kind = "value_mismatch"
)

// Problem is one thing verify found wrong, as data. Message is the
// one-line text for people; the other fields are for machines and are
// empty where they do not apply.
type Problem struct {
	Kind      Kind   `json:"kind"`
	Entity    string `json:"entity,omitempty"`
	Pattern   string `json:"pattern,omitempty"`
	Key       string `json:"key,omitempty"`        // the item's table key, e.g. "PK=USER#1, SK=USER#"
	SourceKey string `json:"source_key,omitempty"` // the source row's primary key, e.g. "user_id=1"
	Attribute string `json:"attribute,omitempty"`
	Want      string `json:"want,omitempty"`
	Got       string `json:"got,omitempty"`
	Message   string `json:"message"`
}

// Problems is a list of problems that counts every problem found but keeps
// at most Max of them (Max 0 keeps all).
type Problems struct {
	Total int64     `json:"total"`
	List  []Problem `json:"list,omitempty"`
	Max   int       `json:"-"`
}

// Add counts p and keeps it while the list has room.
func (ps *Problems) Add(p Problem) {
	ps.Total++
	if ps.Max == 0 || len(ps.List) < ps.Max {
		ps.List = append(ps.List, p)
	}
}

// Addf adds a problem whose message is formatted.
func (ps *Problems) Addf(p Problem, format string, args ...any) {
	p.Message = fmt.Sprintf(format, args...)
	ps.Add(p)
}

// More is how many problems were counted but not kept.
func (ps *Problems) More() int64 { return ps.Total - int64(len(ps.List)) }

// Lines renders the kept problems' messages, and "… and N more" when the
// list was cut.
func (ps *Problems) Lines() []string {
	out := make([]string, 0, len(ps.List)+1)
	for _, p := range ps.List {
		out = append(out, p.Message)
	}
	if n := ps.More(); n > 0 {
		out = append(out, fmt.Sprintf("… and %d more", n))
	}
	return out
}

// String joins Lines with newlines.
func (ps *Problems) String() string { return strings.Join(ps.Lines(), "\n") }
