package main

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/examples/internal/gentest"
	"github.com/remodel-dev/remodel/examples/internal/sqlscript"
)

// TestDataSQLIsCurrent pins the committed data.sql to the generator.
func TestDataSQLIsCurrent(t *testing.T) {
	gentest.DataSQLIsCurrent(t, "game-profile", func(w io.Writer) error { return run(w, 1, "") })
}

func TestDeterministic(t *testing.T) {
	for _, engine := range []string{"", "mysql"} {
		gentest.Deterministic(t, func(w io.Writer) error { return run(w, 2, engine) })
	}
}

func TestFlagErrors(t *testing.T) { gentest.FlagErrors(t, run) }

// TestData checks what the schema and README.md rely on: primary keys,
// foreign keys, the shapes the design needs (users without accounts or
// servers, a head without a manager, managers with people and services),
// and sessions on both sides of the 30-day expiry.
func TestData(t *testing.T) {
	tbls := map[string]sqlscript.Table{}
	for _, tb := range generate(3) {
		tbls[tb.Name] = tb
	}
	keyOf := func(row []any, cols ...int) string {
		var parts []string
		for _, c := range cols {
			parts = append(parts, fmt.Sprint(row[c]))
		}
		return strings.Join(parts, "/")
	}
	pks := map[string][]int{"users": {0}, "accounts": {0}, "user_servers": {0, 1}, "login_sessions": {0}, "internal_workforce": {0}, "internal_services": {0}}
	keys := map[string]map[string]bool{}
	for name, cols := range pks {
		keys[name] = map[string]bool{}
		for _, row := range tbls[name].Rows {
			k := keyOf(row, cols...)
			if keys[name][k] {
				t.Errorf("%s: duplicate key %s", name, k)
			}
			keys[name][k] = true
		}
	}
	// The column of each child table that holds its user.
	perUser := map[string]map[string]int{}
	for name, col := range map[string]int{"accounts": 1, "user_servers": 0, "login_sessions": 1} {
		perUser[name] = map[string]int{}
		for _, row := range tbls[name].Rows {
			u := row[col].(string)
			if !keys["users"][u] {
				t.Errorf("%s: a row of no user: %v", name, row)
			}
			perUser[name][u]++
		}
	}
	users := len(tbls["users"].Rows)
	if n := len(perUser["accounts"]); n == users || n < users/2 {
		t.Errorf("%d of %d users have accounts: want most, not all", n, users)
	}
	if n := len(perUser["user_servers"]); n == users || n < users/2 {
		t.Errorf("%d of %d users have first servers: want most, not all", n, users)
	}
	expired, live := 0, 0
	for _, row := range tbls["login_sessions"].Rows {
		if time.Time(row[3].(sqlscript.TS)).AddDate(0, 0, 30).Before(asOf) {
			expired++
		} else {
			live++
		}
	}
	if expired == 0 || live == 0 {
		t.Errorf("sessions: %d expired and %d live at %v, want both", expired, live, asOf)
	}
	heads, mgrPeople, mgrServices := 0, map[any]bool{}, map[any]bool{}
	for _, row := range tbls["internal_workforce"].Rows {
		if row[6] == nil {
			heads++
			continue
		}
		if !keys["internal_workforce"][row[6].(string)] || row[6].(string) >= row[0].(string) {
			t.Errorf("employee %v: manager %v is not an earlier employee", row[0], row[6])
		}
		mgrPeople[row[6]] = true
	}
	for _, row := range tbls["internal_services"].Rows {
		if !keys["internal_workforce"][row[1].(string)] {
			t.Errorf("service %v: manager %v is no employee", row[0], row[1])
		}
		mgrServices[row[1]] = true
	}
	both := 0
	for m := range mgrServices {
		if mgrPeople[m] {
			both++
		}
	}
	if heads != 1 || both == 0 {
		t.Errorf("%d heads (want 1), %d managers of people and services both (want some)", heads, both)
	}
}
