package verify

import (
	"cmp"
	"fmt"
	"slices"
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
	// KindRejectedUnknown: the rejects file names a row the source does not
	// have (under the entity's where).
	KindRejectedUnknown Kind = "rejected_row_not_in_source"
	// KindCheckError: a count or item check could not run for an entity (its
	// SQL failed, e.g. a bad where); the other checks still ran.
	KindCheckError Kind = "check_error"
	// KindQueryMissing: an access pattern's Query misses an item its SQL returns.
	KindQueryMissing Kind = "query_misses_item"
	// KindQueryExtra: an access pattern's Query returns an item its SQL does not.
	KindQueryExtra Kind = "query_returns_extra_item"
	// KindQueryValue: a Query on an index that projects some attributes
	// only (KEYS_ONLY, INCLUDE) returns an item whose projected attribute
	// differs from what the SQL's row renders (Attribute, Want and Got say
	// how).
	KindQueryValue Kind = "query_item_differs"
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
	Params    string `json:"parameters,omitempty"` // an access pattern's sampled parameters, e.g. "{user_id=7}"
	Key       string `json:"key,omitempty"`        // the item's table key, e.g. "PK=USER#1, SK=USER#"
	SourceKey string `json:"source_key,omitempty"` // the source row's primary key, e.g. "user_id=1"
	Attribute string `json:"attribute,omitempty"`
	Want      string `json:"want,omitempty"`
	Got       string `json:"got,omitempty"`
	Message   string `json:"message"`
}

// Problems is a list of problems that counts every problem found but keeps
// at most Max of them (Max 0 keeps all). The kept ones are the first in
// Problem order (causes first: causeRank; then entity, pattern,
// parameters, key, ...), not the first found, so the list is the same however the checks' work was scheduled.
type Problems struct {
	Total int64     `json:"total"`
	List  []Problem `json:"list,omitempty"`
	Max   int       `json:"-"`
}

// Add counts p and keeps it while it is among the first Max.
func (ps *Problems) Add(p Problem) {
	ps.Total++
	ps.List = append(ps.List, p)
	if ps.Max > 0 && len(ps.List) >= 2*ps.Max+16 {
		ps.Sort() // keep memory bounded: at most about 2*Max problems are held
	}
}

// Sort puts the kept problems in Problem order and drops those past Max.
func (ps *Problems) Sort() {
	slices.SortStableFunc(ps.List, compareProblems)
	if ps.Max > 0 && len(ps.List) > ps.Max {
		ps.List = slices.Clip(ps.List[:ps.Max])
	}
}

func compareProblems(a, b Problem) int {
	return cmp.Or(
		cmp.Compare(causeRank(a.Kind), causeRank(b.Kind)),
		cmp.Compare(a.Entity, b.Entity),
		cmp.Compare(a.Pattern, b.Pattern),
		cmp.Compare(a.Params, b.Params),
		cmp.Compare(a.Key, b.Key),
		cmp.Compare(a.SourceKey, b.SourceKey),
		cmp.Compare(a.Attribute, b.Attribute),
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Message, b.Message),
		cmp.Compare(a.Want, b.Want),
		cmp.Compare(a.Got, b.Got),
	)
}

// causeRank puts the problems that explain others first, so that a list
// cut at Max keeps them: the manifests' (a shard without one, manifests of
// more than one job or split plan, another mapping or table), then the
// objects' (missing, not in the manifest, damaged), then their
// consequences (a key twice in the objects) and every other problem.
func causeRank(k Kind) int {
	switch k {
	case KindManifestMissing, KindManifestConflict, KindSplitConflict, KindMappingDigest, KindTableDefinition:
		return 0
	case KindObjectMissing, KindObjectUnlisted, KindObjectDamaged:
		return 1
	}
	return 2
}

// Addf adds a problem whose message is formatted.
func (ps *Problems) Addf(p Problem, format string, args ...any) {
	p.Message = fmt.Sprintf(format, args...)
	ps.Add(p)
}

// More is how many problems were counted but not kept (after Sort).
func (ps *Problems) More() int64 { return ps.Total - int64(len(ps.List)) }

// OK is true when no problem was found.
func (ps *Problems) OK() bool { return ps.Total == 0 }

// Lines renders the kept problems' messages, and "… and N more" when the
// list was cut.
func (ps *Problems) Lines() []string {
	ps.Sort()
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
