package initmap_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/initmap"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// employees is the shape of the employees sample database: employees,
// departments (9), titles and salaries (children keyed by emp_no and their
// start date), dept_emp (a join table of employees and departments), with
// rows and, where given, the source's distinct estimates.
func employees(distinct map[string]int64) *introspect.Schema {
	n := func(v int64) *int64 { return &v }
	col := func(name string, kind introspect.Kind, ty string) *introspect.Column {
		c := &introspect.Column{Name: name, Kind: kind, Type: ty}
		if d, ok := distinct[name]; ok {
			c.Distinct = n(d)
		}
		return c
	}
	intc := func(name string) *introspect.Column { return col(name, introspect.KindInt, "integer") }
	str := func(name string) *introspect.Column { return col(name, introspect.KindString, "character varying(40)") }
	date := func(name string) *introspect.Column { return col(name, introspect.KindDate, "date") }
	fk := func(name, c, ref, refc string) introspect.ForeignKey {
		return introspect.ForeignKey{Name: name, Columns: []string{c}, RefSchema: "public", RefTable: ref, RefColumns: []string{refc}}
	}
	table := func(name string, rows int64, cols []*introspect.Column, pk []string, fks ...introspect.ForeignKey) *introspect.Table {
		return &introspect.Table{Schema: "public", Name: name, Columns: cols, PrimaryKey: pk, ForeignKeys: fks, Size: introspect.EstimatedRows(rows)}
	}
	return &introspect.Schema{Engine: introspect.Postgres, Database: "employees", Tables: []*introspect.Table{
		table("employees", 300024, []*introspect.Column{intc("emp_no"), str("last_name"), date("hire_date")}, []string{"emp_no"}),
		table("departments", 9, []*introspect.Column{str("dept_no"), str("dept_name")}, []string{"dept_no"}),
		table("titles", 443308, []*introspect.Column{intc("emp_no"), str("title"), date("from_date"), date("to_date")},
			[]string{"emp_no", "title", "from_date"}, fk("titles_emp_fk", "emp_no", "employees", "emp_no")),
		table("salaries", 2844047, []*introspect.Column{intc("emp_no"), intc("salary"), date("from_date"), date("to_date")},
			[]string{"emp_no", "from_date"}, fk("salaries_emp_fk", "emp_no", "employees", "emp_no")),
		table("dept_emp", 331603, []*introspect.Column{intc("emp_no"), str("dept_no"), date("from_date"), date("to_date")},
			[]string{"emp_no", "dept_no"}, fk("dept_emp_emp_fk", "emp_no", "employees", "emp_no"),
			fk("dept_emp_dept_fk", "dept_no", "departments", "dept_no")),
	}}
}

// entityBlock is the text of one entity in a generated mapping, its
// comments unwrapped (a continued line joined to the one before).
func entityBlock(out, name string) string {
	m := regexp.MustCompile(`(?ms)^  ` + name + `:\n.*?(^  \S|\naccess_patterns)`).FindString(out)
	return regexp.MustCompile(`\n\s*#   `).ReplaceAllString(m, " ")
}

// TestEmployeesDesign (issue 33 §1.2 and §1.4): titles, whose key (emp_no,
// title, from_date) holds its partition key (emp_no) and the time its
// sort key begins with, is read by a GetItem of its key: no GSI1 entry,
// as salaries; dept_emp's other side (9 departments for 331603 rows) is
// neither an adjacency index partition nor an overloaded one; and the
// figures init counted itself decide, over the source's statistics.
func TestEmployeesDesign(t *testing.T) {
	s := employees(map[string]int64{"dept_no": 9})
	out := string(initmap.Generate(s, initmap.Options{}))
	f, err := mapping.Parse("employees.yaml", []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mapping.Compile(f, s); err != nil {
		t.Fatalf("the mapping does not compile: %v\n%s", err, out)
	}
	for _, e := range []string{"titles", "salaries"} {
		b := entityBlock(out, e)
		if strings.Contains(b, "GSI1PK") {
			t.Errorf("%s is written to GSI1, which its table key already answers:\n%s", e, b)
		}
		if !strings.Contains(b, "a GetItem reads it by its key") {
			t.Errorf("%s: the comment does not say a GetItem reads it:\n%s", e, b)
		}
	}
	de := entityBlock(out, "dept_emp")
	byDept := regexp.MustCompile(`(?m)^\s+(PK|GSI\d+PK): "DEPARTMENTS#`)
	if byDept.MatchString(de) {
		t.Errorf("dept_emp is indexed by its 9 departments:\n%s", de)
	}
	if !strings.Contains(de, "dept_no has about 9 distinct values in about 331603 rows") {
		t.Errorf("dept_emp: the comment does not give the figures:\n%s", de)
	}

	// InnoDB's estimate of 300 departments, above the 9 rows of departments:
	// capped at them.
	out = string(initmap.Generate(employees(map[string]int64{"dept_no": 300}), initmap.Options{}))
	de = entityBlock(out, "dept_emp")
	if !strings.Contains(de, "about 9 distinct values") || !strings.Contains(de, "capped at the 9 rows of departments") {
		t.Errorf("dept_emp: an estimate above the parent's rows is not capped:\n%s", de)
	}

	// The source's statistics say 9000 (stale), init counted 9: its count decides.
	s = employees(map[string]int64{"dept_no": 9000})
	m := initmap.Measured{}
	m.Put(s.Tables[4], "dept_no", initmap.Count{Rows: 331603, Distinct: 9, NonNull: 331603})
	out = string(initmap.Generate(s, initmap.Options{Measured: m}))
	de = entityBlock(out, "dept_emp")
	if byDept.MatchString(de) || !strings.Contains(de, "9 distinct values in 331603 rows (counted by init in every row)") {
		t.Errorf("dept_emp: init's own count does not decide:\n%s", de)
	}
	if !strings.Contains(regexp.MustCompile(`\n#   `).ReplaceAllString(out, " "), "# Figures: init counted the distinct values of 1 columns of 1 tables") {
		t.Errorf("the header does not say what init counted:\n%s", out[:2000])
	}
}

// TestUniqueForeignKeyOnePath (issue 33 §1.4): Sakila's store.manager_staff_id
// is a foreign key to staff and a unique key: one index path (the foreign
// key's, whose partition of one value holds the one store), not a second
// index for the unique key.
func TestUniqueForeignKeyOnePath(t *testing.T) {
	s := &introspect.Schema{Engine: introspect.Postgres, Database: "sakila", Tables: []*introspect.Table{{
		Schema: "public", Name: "staff", PrimaryKey: []string{"staff_id"}, Size: introspect.ExactRows(2),
		Columns:     []*introspect.Column{{Name: "staff_id", Kind: introspect.KindInt, Type: "integer"}, {Name: "store_id", Kind: introspect.KindInt, Type: "integer"}},
		ForeignKeys: []introspect.ForeignKey{{Name: "staff_store_fk", Columns: []string{"store_id"}, RefSchema: "public", RefTable: "store", RefColumns: []string{"store_id"}}},
	}, {
		Schema: "public", Name: "store", PrimaryKey: []string{"store_id"}, Size: introspect.ExactRows(2),
		Columns:     []*introspect.Column{{Name: "store_id", Kind: introspect.KindInt, Type: "integer"}, {Name: "manager_staff_id", Kind: introspect.KindInt, Type: "integer"}},
		ForeignKeys: []introspect.ForeignKey{{Name: "store_manager_fk", Columns: []string{"manager_staff_id"}, RefSchema: "public", RefTable: "staff", RefColumns: []string{"staff_id"}}},
		UniqueKeys:  []introspect.UniqueKey{{Name: "store_manager_key", Columns: []string{"manager_staff_id"}}},
	}}}
	out := string(initmap.Generate(s, initmap.Options{}))
	st := entityBlock(out, "store")
	if n := len(regexp.MustCompile(`GSI\d+PK: `).FindAllString(st, -1)); n != 1 {
		t.Errorf("store has %d index paths on manager_staff_id, want 1:\n%s", n, st)
	}
	if !strings.Contains(st, "unique key store_manager_key (manager_staff_id): no index of its own: foreign key store_manager_fk") {
		t.Errorf("store: no comment on the unique key's path:\n%s", st)
	}
	f, err := mapping.Parse("sakila.yaml", []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mapping.Compile(f, s); err != nil {
		t.Fatalf("the mapping does not compile: %v\n%s", err, out)
	}
}
