package introspect

import (
	"fmt"
	"path"
	"strings"
)

// CheckPattern reports whether pattern is a well-formed table pattern (see
// Table.Matches).
func CheckPattern(pattern string) error {
	if pattern == "" {
		return fmt.Errorf("empty table pattern")
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("table pattern %q is malformed: %w", pattern, err)
	}
	return nil
}

// Matches reports whether the table matches a glob pattern: * matches any
// run of characters, ? one character, [a-z] one of a class, \ quotes the
// next character. A pattern with a dot is matched against schema.name, one
// without against the name alone. Matching is case-sensitive. A malformed
// pattern matches nothing (CheckPattern tells).
func (t *Table) Matches(pattern string) bool {
	subject := t.Name
	if strings.Contains(pattern, ".") {
		subject = t.QualifiedName()
	}
	ok, err := path.Match(pattern, subject)
	return ok && err == nil
}

// Filter returns a copy of s with the tables that match one of include (or
// every table, when include is empty) and none of exclude. The tables
// themselves are shared, not copied.
func (s *Schema) Filter(include, exclude []string) *Schema {
	out := *s
	out.Tables = make([]*Table, 0, len(s.Tables))
	for _, t := range s.Tables {
		if (len(include) == 0 || t.matchesAny(include)) && !t.matchesAny(exclude) {
			out.Tables = append(out.Tables, t)
		}
	}
	return &out
}

func (t *Table) matchesAny(patterns []string) bool {
	for _, p := range patterns {
		if t.Matches(p) {
			return true
		}
	}
	return false
}

// Unmatched returns the patterns that match no table of s.
func (s *Schema) Unmatched(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		found := false
		for _, t := range s.Tables {
			if t.Matches(p) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, p)
		}
	}
	return out
}

// IsUnique reports whether the values of cols are unique in the table: the
// columns include all of the primary key's or of a unique key's. (Rows
// whose values include a NULL may repeat under a unique key; a foreign key
// with a NULL references nothing.)
func (t *Table) IsUnique(cols []string) bool {
	has := make(map[string]bool, len(cols))
	for _, c := range cols {
		has[c] = true
	}
	covers := func(key []string) bool {
		if len(key) == 0 {
			return false
		}
		for _, k := range key {
			if !has[k] {
				return false
			}
		}
		return true
	}
	if covers(t.PrimaryKey) {
		return true
	}
	for _, k := range t.UniqueKeys {
		if covers(k.Columns) {
			return true
		}
	}
	return false
}
