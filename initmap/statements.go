package initmap

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/source"
)

// Statistics are the statements the source has run most often, from its
// statement statistics: PostgreSQL's pg_stat_statements, MySQL's and
// MariaDB's performance_schema.events_statements_summary_by_digest.
type Statistics struct {
	// From names where they were read.
	From string
	// Unavailable says why there are none, when they could not be read.
	Unavailable string
	// Statements are the SELECT statements of the database, the most
	// often run first (at most MaxStatements).
	Statements []Statement
}

// Statement is one normalized statement and how often it ran.
type Statement struct {
	SQL   string
	Calls int64
}

// MaxStatements is how many of the most often run statements init reads.
const MaxStatements = 20

// ReadStatistics reads the source's statement statistics, in one short
// transaction of one connection. What keeps it from reading them (the
// extension not installed or not loaded, performance_schema off, no
// privilege) is said in Unavailable, not returned as an error: init writes
// a mapping without them.
func ReadStatistics(ctx context.Context, src source.Source) (Statistics, error) {
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		return Statistics{}, fmt.Errorf("reading statement statistics: %w", err)
	}
	defer snap.Close()
	r := snap.Readers()[0]
	var st Statistics
	one := func(q string) (string, error) {
		var v string
		err := r.Guard(ctx, func() error {
			return r.Query(ctx, q, nil, asText, func(_ []string, row []any) error {
				v = fmt.Sprint(row[0])
				return nil
			})
		})
		return v, err
	}
	var q string
	if src.Engine() == introspect.Postgres {
		st.From = "pg_stat_statements"
		n, err := one("SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'")
		if err != nil {
			return st, fmt.Errorf("reading statement statistics: %w", err)
		}
		if n == "0" {
			st.Unavailable = "the extension pg_stat_statements is not installed in this database (CREATE EXTENSION pg_stat_statements, with the library in shared_preload_libraries)"
			return st, nil
		}
		q = fmt.Sprintf(`SELECT s.query, s.calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
WHERE d.datname = current_database() AND s.query ~* '^\s*select\M' ORDER BY s.calls DESC, s.query LIMIT %d`, MaxStatements)
	} else {
		st.From = "performance_schema.events_statements_summary_by_digest"
		on, err := one("SELECT @@performance_schema")
		if err != nil {
			return st, fmt.Errorf("reading statement statistics: %w", err)
		}
		if on == "0" || strings.EqualFold(on, "off") || on == "false" {
			st.Unavailable = "performance_schema is off (performance_schema = ON in the server's configuration, and a restart, turns it on)"
			return st, nil
		}
		q = fmt.Sprintf(`SELECT DIGEST_TEXT, COUNT_STAR FROM performance_schema.events_statements_summary_by_digest
WHERE SCHEMA_NAME = DATABASE() AND DIGEST_TEXT LIKE 'SELECT%%' ORDER BY COUNT_STAR DESC, DIGEST_TEXT LIMIT %d`, MaxStatements)
	}
	err = r.Guard(ctx, func() error {
		return r.Query(ctx, q, nil, asText, func(_ []string, row []any) error {
			calls, _ := strconv.ParseInt(fmt.Sprint(row[1]), 10, 64)
			st.Statements = append(st.Statements, Statement{SQL: fmt.Sprint(row[0]), Calls: calls})
			return nil
		})
	})
	if err != nil && ctx.Err() != nil {
		return st, fmt.Errorf("reading statement statistics: %w", err)
	}
	if err != nil {
		// The connection answered the first query: this one's failure is
		// the statistics' (not loaded, no privilege), said in the file.
		var se *source.SQLError
		msg := err.Error()
		if errors.As(err, &se) {
			msg = se.Error()
		}
		st.Unavailable = st.From + " cannot be read: " + msg
		return st, nil
	}
	if len(st.Statements) == 0 {
		st.Unavailable = st.From + " has recorded no SELECT statement of this database"
	}
	return st, nil
}

// asText reads every result column as text.
func asText(string) *introspect.Column { return nil }

const identRE = `(?:"(?:[^"]|"")+"|` + "`(?:[^`]|``)+`" + `|[\pL_][\pL\pN_$]*)`

var (
	// selectRE is a SELECT from one table (no join, no list of tables)
	// with a WHERE clause: the table's (maybe qualified) name, then what
	// follows WHERE.
	selectRE = regexp.MustCompile(`(?is)^\s*select\s.*?\sfrom\s+(` + identRE + `(?:\s*\.\s*` + identRE + `)?)(?:\s+(?:as\s+)?` + identRE + `)?\s+where\s+(.*)$`)
	// equalsRE is col = $1 or col = ? (a table alias before col allowed).
	equalsRE = regexp.MustCompile(`(?i)(?:` + identRE + `\s*\.\s*)?(` + identRE + `)\s*=\s*(?:\$\d+|\?)`)
	joinRE   = regexp.MustCompile(`(?i)\s(join|union|intersect|except)\s|\bfrom\s+\(`)
)

// unquote removes an identifier's quotes.
func unquote(s string) string {
	switch {
	case len(s) >= 2 && s[0] == '"':
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	case len(s) >= 2 && s[0] == '`':
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	}
	return s
}

// parseStatement reads what an access pattern needs from a normalized
// statement: the one table it reads and the columns it compares for
// equality with a parameter, in order. ok is false for anything else (a
// join, a subquery in FROM, no such comparison).
func parseStatement(sql string) (table string, cols []string, ok bool) {
	m := selectRE.FindStringSubmatch(sql)
	if m == nil || joinRE.MatchString(sql) {
		return "", nil, false
	}
	parts := regexp.MustCompile(`\s*\.\s*`).Split(m[1], 2)
	// A quoted name may hold a dot: split again only outside quotes.
	if len(parts) == 2 && (strings.Count(parts[0], `"`)%2 == 1 || strings.Count(parts[0], "`")%2 == 1) {
		parts = []string{m[1]}
	}
	table = unquote(parts[len(parts)-1])
	for _, e := range equalsRE.FindAllStringSubmatch(m[2], -1) {
		c := unquote(e[1])
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return "", nil, false
	}
	return table, cols, true
}

// answers finds the access pattern of the mapping that answers a statement:
// one whose entity reads the statement's table and whose SQL compares
// exactly the same columns.
func answers(pats []written, st Statement) (name, table string, cols []string, ok bool) {
	t, cols, ok := parseStatement(st.SQL)
	if !ok {
		return "", "", nil, false
	}
	for _, p := range pats {
		if p.table == t && sameSet(p.cols, cols) {
			return p.name, t, cols, true
		}
	}
	return "", t, cols, true
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// written is an access pattern as written: its name, the table of its
// (single) entity and the columns its SQL compares.
type written struct {
	name  string
	table string
	cols  []string
}
