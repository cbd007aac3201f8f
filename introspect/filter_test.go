package introspect

import (
	"reflect"
	"strconv"
	"testing"
)

func filterSchema() *Schema {
	return &Schema{Engine: Postgres, Database: "db", Tables: []*Table{
		{Schema: "billing", Name: "customers"},
		{Schema: "public", Name: "customers"},
		{Schema: "public", Name: "film"},
		{Schema: "public", Name: "film_actor"},
		{Schema: "public", Name: "Film"},
		{Schema: "public", Name: "tmp_x"},
	}}
}

func names(s *Schema) []string {
	out := []string{}
	for _, t := range s.Tables {
		out = append(out, t.QualifiedName())
	}
	return out
}

func TestFilter(t *testing.T) {
	for _, tc := range []struct {
		include, exclude []string
		want             []string
	}{
		{nil, nil, []string{"billing.customers", "public.customers", "public.film", "public.film_actor", "public.Film", "public.tmp_x"}},
		// Case matters; * matches any run.
		{[]string{"film*"}, nil, []string{"public.film", "public.film_actor"}},
		{[]string{"film", "tmp_?"}, nil, []string{"public.film", "public.tmp_x"}},
		// Without a dot, the name alone; with one, schema.name.
		{[]string{"customers"}, nil, []string{"billing.customers", "public.customers"}},
		{[]string{"billing.*"}, nil, []string{"billing.customers"}},
		{[]string{"*.customers"}, []string{"billing.*"}, []string{"public.customers"}},
		{nil, []string{"tmp_*", "[Ff]ilm"}, []string{"billing.customers", "public.customers", "public.film_actor"}},
		{[]string{"film*"}, []string{"film*"}, []string{}},
	} {
		s := filterSchema()
		got := names(s.Filter(tc.include, tc.exclude))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Filter(%q, %q) = %q, want %q", tc.include, tc.exclude, got, tc.want)
		}
		if len(s.Tables) != 6 {
			t.Errorf("Filter changed the schema it filters")
		}
	}
	if got := filterSchema().Unmatched([]string{"film*", "nope", "public.nope*", "billing.customers"}); !reflect.DeepEqual(got, []string{"nope", "public.nope*"}) {
		t.Errorf("Unmatched = %q, want [nope public.nope*]", got)
	}
}

func TestCheckPattern(t *testing.T) {
	for p, want := range map[string]string{
		"film*":   "",
		"[a-z]*":  "",
		"":        "empty table pattern",
		"[":       `table pattern "[" is malformed: syntax error in pattern`,
		"film[a-": `table pattern "film[a-" is malformed: syntax error in pattern`,
	} {
		got := ""
		if err := CheckPattern(p); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CheckPattern(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestIsUnique(t *testing.T) {
	tbl := &Table{
		PrimaryKey: []string{"a", "b"},
		UniqueKeys: []UniqueKey{{Name: "u", Columns: []string{"c"}}},
	}
	for _, tc := range []struct {
		cols []string
		want bool
	}{
		{[]string{"a"}, false},
		{[]string{"b", "a"}, true},
		{[]string{"a", "b", "d"}, true},
		{[]string{"c"}, true},
		{[]string{"d", "c"}, true},
		{[]string{"d"}, false},
		{nil, false},
	} {
		if got := tbl.IsUnique(tc.cols); got != tc.want {
			t.Errorf("IsUnique(%q) = %v, want %v", tc.cols, got, tc.want)
		}
	}
	if (&Table{}).IsUnique([]string{"a"}) {
		t.Error("a table without keys has unique columns")
	}
}

func TestSizeAdd(t *testing.T) {
	rows := func(s Size) string {
		n, exact, known := s.Rows()
		switch {
		case !known:
			return "unknown"
		case exact:
			return "exactly " + strconv.FormatInt(n, 10)
		}
		return "about " + strconv.FormatInt(n, 10)
	}
	for _, tc := range []struct {
		a, b Size
		want string
	}{
		{ExactRows(2), ExactRows(3), "exactly 5"},
		{ExactRows(2), EstimatedRows(3), "about 5"},
		{EstimatedRows(2), ExactRows(3), "about 5"},
		{EstimatedRows(2), Size{}, "unknown"},
		{Size{}, ExactRows(0), "unknown"},
	} {
		s := tc.a
		s.DataBytes, s.IndexBytes = 1, 2
		b := tc.b
		b.DataBytes, b.IndexBytes = 10, 20
		s.Add(b)
		if got := rows(s); got != tc.want || s.DataBytes != 11 || s.IndexBytes != 22 {
			t.Errorf("%s + %s = %s (%d, %d bytes), want %s (11, 22 bytes)", rows(tc.a), rows(tc.b), got, s.DataBytes, s.IndexBytes, tc.want)
		}
		if n, exact, _ := s.Rows(); exact && *s.RowEstimate != n {
			t.Errorf("an exact sum's RowEstimate %d is not its RowCount %d", *s.RowEstimate, n)
		}
	}
}
