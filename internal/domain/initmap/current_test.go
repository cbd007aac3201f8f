package initmap_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/initmap"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

// employeesOpen is a small database of the employees sample's shape, in
// SQL both engines run: 300 employees in 20 departments; dept_emp (a join
// table) with to_date = '9999-01-01' on the rows of the 30 employees still
// there (30 of 330 rows, 9.1 %); salaries, 5 an employee, the last one of
// those 30 open (30 of 1500, 2 %); titles, whose to_date (nullable, never
// NULL) is 9999-01-01 in 40 % of the rows (too many for a sparse index);
// and dates that are all in the past (birth_date, hire_date, from_date).
func employeesOpen() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE employees (emp_no INT NOT NULL PRIMARY KEY, birth_date DATE NOT NULL,
  first_name VARCHAR(14) NOT NULL, last_name VARCHAR(16) NOT NULL, hire_date DATE NOT NULL);
CREATE TABLE departments (dept_no CHAR(4) NOT NULL PRIMARY KEY, dept_name VARCHAR(40) NOT NULL UNIQUE);
CREATE TABLE dept_emp (emp_no INT NOT NULL REFERENCES employees (emp_no),
  dept_no CHAR(4) NOT NULL REFERENCES departments (dept_no),
  from_date DATE NOT NULL, to_date DATE NOT NULL, PRIMARY KEY (emp_no, dept_no));
CREATE TABLE titles (emp_no INT NOT NULL REFERENCES employees (emp_no), title VARCHAR(50) NOT NULL,
  from_date DATE NOT NULL, to_date DATE, PRIMARY KEY (emp_no, title, from_date));
CREATE TABLE salaries (emp_no INT NOT NULL REFERENCES employees (emp_no), salary INT NOT NULL,
  from_date DATE NOT NULL, to_date DATE NOT NULL, PRIMARY KEY (emp_no, from_date));
`)
	date := func(y, m, d int) string { return fmt.Sprintf("'%04d-%02d-%02d'", y, m, d) }
	const far = "'9999-01-01'"
	insert := func(table string, rows []string) {
		fmt.Fprintf(&b, "INSERT INTO %s VALUES\n  %s;\n", table, strings.Join(rows, ",\n  "))
	}
	var depts, emps, deptEmp, titles, salaries []string
	for d := 1; d <= 20; d++ {
		depts = append(depts, fmt.Sprintf("('d%03d', 'Department %d')", d, d))
	}
	for e := 1; e <= 300; e++ {
		hire := 1985 + e%10
		current := e%10 == 0
		emps = append(emps, fmt.Sprintf("(%d, %s, 'First%d', 'Last%d', %s)", 10000+e, date(1960+e%20, 1+e%12, 1+e%28), e, e, date(hire, 1+e%12, 1+e%28)))
		end := far
		if !current {
			end = date(hire+5, 1+e%12, 1+e%28)
		}
		deptEmp = append(deptEmp, fmt.Sprintf("(%d, 'd%03d', %s, %s)", 10000+e, 1+e%20, date(hire, 1+e%12, 1+e%28), end))
		if e%10 == 3 { // moved once: an earlier department, ended
			deptEmp = append(deptEmp, fmt.Sprintf("(%d, 'd%03d', %s, %s)", 10000+e, 1+(e+7)%20, date(hire-1, 1+e%12, 1+e%28), date(hire, 1+e%12, 1+e%28)))
		}
		titleEnd := date(hire+5, 1+e%12, 1+e%28)
		switch e % 10 {
		case 0, 1, 2, 4:
			titleEnd = far
		}
		titles = append(titles, fmt.Sprintf("(%d, 'Engineer', %s, %s)", 10000+e, date(hire, 1+e%12, 1+e%28), titleEnd))
		for k := range 5 {
			end := date(hire+k+1, 1+e%12, 1+e%28)
			if k == 4 && current {
				end = far
			}
			salaries = append(salaries, fmt.Sprintf("(%d, %d, %s, %s)", 10000+e, 40000+1000*k+e, date(hire+k, 1+e%12, 1+e%28), end))
		}
	}
	insert("departments", depts)
	insert("employees", emps)
	insert("dept_emp", deptEmp)
	insert("titles", titles)
	insert("salaries", salaries)
	return b.String()
}

// TestInitCurrentRowsMigrateVerify (issue 33 §1.4): init reads the largest
// value of each date column of a database of the employees sample's shape,
// on PostgreSQL and MariaDB, and takes a far-future one held by a few rows
// for the current rows: dept_emp's to_date = '9999-01-01' (30 of 330
// rows) and salaries' (30 of 1500) each get a sparse index of the current
// rows of one employee, written only while to_date is that value (when:,
// acknowledged); titles' (120 of 300 rows, 40 %) gets none, with its
// figures. The mapping is a golden file per engine, passes validate
// --strict, migrates into DynamoDB Local and verifies (every item and
// every access pattern, the sparse ones included: verify checks that each
// index holds exactly the rows of its SQL).
func TestInitCurrentRowsMigrateVerify(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	for _, eng := range []struct {
		name  string
		fresh func(testing.TB) string
		exec  func(testing.TB, string, string)
	}{{"postgres", testenv.Postgres, testenv.ExecPostgres}, {"mysql", testenv.MySQL, testenv.ExecMySQL}} {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel() // each its own database and table
			dsn := eng.fresh(t)
			eng.exec(t, dsn, employeesOpen())
			file := filepath.Join(t.TempDir(), "mapping.yaml")
			if code, out := remodel(t, "init", "--source", dsn, "--output-file", file); code != 0 {
				t.Fatalf("init: exit %d\n%s", code, out)
			}
			m, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// The test database's name and whether the server keeps
			// statement statistics are the machine's: the golden file
			// leaves them out; MySQL's row counts are the engine's
			// estimates.
			g := regexp.MustCompile(`(?m)^# Statement statistics.*\n(#  .*\n|# - .*\n)*`).ReplaceAll(m, nil)
			g = regexp.MustCompile(`remodel_test_p[0-9]+_[0-9a-f]+`).ReplaceAll(g, []byte("DB"))
			g = regexp.MustCompile(`\n *#   `).ReplaceAll(g, []byte(" "))
			g = regexp.MustCompile(`\((about )?\d+ rows|\(rows unknown`).ReplaceAll(g, []byte("(N rows"))
			golden.Check(t, "employees-open."+eng.name+".yaml", g)
			for _, want := range []string{
				"# - dept_emp: to_date is 9999-01-01 in 30 of 330 rows (9.1 %, counted by init in every row) → listCurrentDeptEmpByEmpNo",
				"# - salaries: to_date is 9999-01-01 in 30 of 1500 rows (2.0 %, counted by init in every row) → listCurrentSalariesByEmpNo",
				"# - titles: to_date is 9999-01-01 in 120 of 300 rows (40.0 %, counted by init in every row): more than 25 % of the rows, no sparse index",
				`when: "to_date = '9999-01-01'"`,
				"SELECT * FROM dept_emp WHERE emp_no = {emp_no} AND to_date = '9999-01-01'",
				"warning: sparse-when, entity: dept_emp",
				"warning: sparse-when, entity: salaries",
			} {
				if !strings.Contains(string(g), want) {
					t.Errorf("the mapping does not hold\n  %s\n%s", want, g)
				}
			}
			for _, not := range []string{"listCurrentTitles", "listCurrentEmployees", "hire_date = '", "from_date = '", "birth_date = '"} {
				if strings.Contains(string(g), not) {
					t.Errorf("the mapping holds %q: a date that is no sentinel, or one held by too many rows, was taken for one", not)
				}
			}
			strict(t, dsn, file)
			migrateVerify(t, dsn, file, endpoint, m)
		})
	}
}

// TestGenerateCurrentRows (issue 33 §1.4): the rule on the figures alone,
// on the employees sample's shape at its real size: salaries' to_date is
// 9999-01-01 in 240124 of the first 1000000 rows read (24 %, a sample: the
// file says so) and gets a sparse index of the current rows, when: in the
// engine's SQL; dept_emp's, 72 % of its rows, gets none, with its figures.
// A largest value before the year 2999, a far one no row holds, one held
// by more than 25 % of the rows, or two far values give no index;
// 2999-12-31, a timestamp of 9999 on MySQL and PostgreSQL's infinity do.
func TestGenerateCurrentRows(t *testing.T) {
	gen := func(eng introspect.Engine, last string, at, farValues int64) string {
		s := employees(map[string]int64{"dept_no": 9})
		s.Engine = eng
		m := initmap.Measured{}
		for _, tb := range s.Tables {
			switch tb.Name {
			case "salaries":
				m.PutLast(tb, "to_date", initmap.Count{Rows: 1000000, Sample: true, Last: last, AtLast: at, FarValues: farValues})
				m.PutLast(tb, "from_date", initmap.Count{Rows: 1000000, Sample: true, Last: "2002-08-01", AtLast: 9000, FarValues: 1})
			case "dept_emp":
				m.PutLast(tb, "to_date", initmap.Count{Rows: 331603, Last: "9999-01-01", AtLast: 240124, FarValues: 1})
			}
		}
		return regexp.MustCompile(`\n *#   `).ReplaceAllString(string(initmap.Generate(s, initmap.Options{Measured: m})), " ")
	}
	out := gen(introspect.Postgres, "9999-01-01", 240124, 1)
	for _, want := range []string{
		"# - salaries: to_date is 9999-01-01 in 240124 of 1000000 rows (24.0 %, counted by init in the first 1000000 rows read, a sample) → listCurrentSalariesByEmpNo",
		`GSI2PK: {value: "EMPLOYEES#{emp_no|pad:10}", when: "to_date = '9999-01-01'"}`,
		"SELECT * FROM salaries WHERE emp_no = {emp_no} AND to_date = '9999-01-01'",
		"# - dept_emp: to_date is 9999-01-01 in 240124 of 331603 rows (72.4 %, counted by init in every row): more than 25 % of the rows, no sparse index",
		"warning: sparse-when, entity: salaries, index: GSI2",
		"in the year 2999 or later",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the mapping does not hold\n  %s\n%s", want, out)
		}
	}
	if strings.Contains(out, "listCurrentDeptEmp") {
		t.Error("dept_emp, 72 % of its rows current, got a sparse index")
	}
	if my := gen(introspect.MySQL, "9999-12-31 23:59:59", 3, 1); !strings.Contains(my, `when: "to_date = '9999-12-31 23:59:59'"`) {
		t.Errorf("a DATETIME of 9999 on MySQL: no sparse index of the current rows:\n%s", my)
	}
	for last, want := range map[string]bool{"2999-12-31": true, "infinity": true, "2998-12-31": false, "2024-06-30": false} {
		if got := strings.Contains(gen(introspect.Postgres, last, 10, 1), "listCurrentSalariesByEmpNo"); got != want {
			t.Errorf("largest to_date %s: a sparse index of the current rows is %v, want %v", last, got, want)
		}
	}
	for _, at := range []int64{0, 250001} {
		if out := gen(introspect.Postgres, "9999-01-01", at, 1); strings.Contains(out, "listCurrentSalariesByEmpNo") {
			t.Errorf("to_date 9999-01-01 in %d of 1000000 rows: taken for the current rows", at)
		}
	}
	// Two far values (9999-01-01 and 9999-12-31): no one sentinel.
	out = gen(introspect.Postgres, "9999-12-31", 5000, 2)
	if strings.Contains(out, "listCurrentSalariesByEmpNo") ||
		!strings.Contains(out, "# - salaries: to_date holds 2 values of the year 2999 or later (the largest 9999-12-31), in 5000 of 1000000 rows") {
		t.Errorf("to_date with two far values: taken for the current rows, or not said:\n%s", out)
	}
}
