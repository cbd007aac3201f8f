package initmap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// Statistics are the statements the source has run most often, from its
// statement statistics: PostgreSQL's pg_stat_statements, MySQL's and
// MariaDB's performance_schema.events_statements_summary_by_digest.
type Statistics struct {
	// From names where they were read.
	From string
	// Unavailable says why there are none, when they could not be read.
	Unavailable string
	// Statements are the SELECT statements of the database that read
	// from a table (not from the system catalogs: pg_catalog,
	// information_schema, performance_schema), the most often run first
	// (at most MaxStatements).
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
	ss := src.Engine().Dialect().StatementStatistics(MaxStatements)
	st.From = ss.From
	probe, err := one(ss.Probe)
	if err != nil {
		return st, fmt.Errorf("reading statement statistics: %w", err)
	}
	if why := ss.Unavailable(probe); why != "" {
		st.Unavailable = why
		return st, nil
	}
	q := ss.Query
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

// token is one word of a statement: an identifier (unquoted), a keyword
// (upper case), a parameter, a literal or a punctuation mark.
type token struct {
	kind byte // 'i' identifier, 'k' keyword or bare word, 'p' parameter, 'l' literal, 'o' operator or punctuation
	text string
}

// tokens splits a normalized statement (pg_stat_statements' $1, MySQL's
// digest with `names` and ?) into tokens. ok is false for text it cannot
// read (an unterminated quote).
func tokens(sql string) ([]token, bool) {
	var out []token
	r := []rune(sql)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '"' || c == '`':
			var b strings.Builder
			j := i + 1
			for ; j < len(r); j++ {
				if r[j] == c {
					if j+1 < len(r) && r[j+1] == c {
						b.WriteRune(c)
						j++
						continue
					}
					break
				}
				b.WriteRune(r[j])
			}
			if j >= len(r) || b.Len() == 0 {
				return nil, false // unterminated, or a zero-length name
			}
			out = append(out, token{'i', b.String()})
			i = j + 1
		case c == '\'':
			j := i + 1
			for ; j < len(r); j++ {
				if r[j] == '\'' {
					if j+1 < len(r) && r[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(r) {
				return nil, false
			}
			out = append(out, token{'l', string(r[i : j+1])})
			i = j + 1
		case c == '$' && i+1 < len(r) && unicode.IsDigit(r[i+1]):
			j := i + 1
			for j < len(r) && unicode.IsDigit(r[j]) {
				j++
			}
			out = append(out, token{'p', string(r[i:j])})
			i = j
		case c == '?':
			out = append(out, token{'p', "?"})
			i++
		case unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(r) && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j]) || r[j] == '_' || r[j] == '$') {
				j++
			}
			w := string(r[i:j])
			if keywords[strings.ToUpper(w)] {
				out = append(out, token{'k', strings.ToUpper(w)})
			} else {
				out = append(out, token{'i', w})
			}
			i = j
		case unicode.IsDigit(c):
			j := i
			for j < len(r) && (unicode.IsDigit(r[j]) || r[j] == '.') {
				j++
			}
			out = append(out, token{'l', string(r[i:j])})
			i = j
		default:
			op := string(c)
			if i+1 < len(r) {
				switch two := string(r[i : i+2]); two {
				case "<=", ">=", "<>", "!=", "::", "||":
					op = two
				}
			}
			out = append(out, token{'o', op})
			i += len([]rune(op))
		}
	}
	return out, true
}

// keywords are the words the statement parser reads as SQL, not as names.
var keywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`SELECT DISTINCT FROM WHERE AND OR NOT IN IS NULL LIKE ILIKE BETWEEN ORDER BY ASC DESC
	LIMIT OFFSET FETCH FOR JOIN INNER LEFT RIGHT FULL CROSS NATURAL ON USING UNION INTERSECT EXCEPT GROUP HAVING
	AS ONLY LATERAL WITH EXISTS ANY ALL SOME CASE WHEN THEN ELSE END WINDOW OVER COLLATE NULLS FIRST LAST`) {
		keywords[w] = true
	}
}

// rangeOps are the range comparisons a sort key condition can make, by
// their SQL operator.
var rangeOps = map[string]string{">": "gt", ">=": "gte", "<": "lt", "<=": "lte"}

// parsed is a statement an access pattern can answer: a SELECT of the
// rows of one table, with equality conditions on columns, at most one range
// condition, and an ORDER BY of one column (the range's, if any) with an
// optional LIMIT.
type parsed struct {
	schema, table string
	eq            []string // columns compared with = to a parameter, in order
	rangeCol      string   // the column of the range condition, or ""
	rangeOp       string   // gt, gte, lt or lte
	orderCol      string   // the ORDER BY column, or ""
	desc          bool
	limit         bool // a LIMIT (its value a parameter in the statistics)
}

// sortCol is the column an index sort key would hold: the range's or the
// order's.
func (p parsed) sortCol() string { return cmp.Or(p.rangeCol, p.orderCol) }

// parseStatement reads a normalized statement into what an access pattern
// needs, or says why it cannot (a join, a subquery, a function on a
// column, OR, ...).
func parseStatement(sql string) (parsed, string) {
	toks, ok := tokens(sql)
	if !ok {
		return parsed{}, "an unterminated quote (the statement was cut off) or an empty quoted name"
	}
	var p parsed
	pos := 0
	peek := func() token {
		if pos < len(toks) {
			return toks[pos]
		}
		return token{}
	}
	isK := func(w string) bool { t := peek(); return t.kind == 'k' && t.text == w }
	isO := func(o string) bool { t := peek(); return t.kind == 'o' && t.text == o }
	if !isK("SELECT") {
		return p, "not a SELECT"
	}
	pos++
	if isK("DISTINCT") {
		return p, "SELECT DISTINCT"
	}
	// The select list: names and *, no expression (an aggregate or a
	// function reads something else than rows).
	for ; pos < len(toks) && !isK("FROM"); pos++ {
		switch t := peek(); {
		case t.kind == 'o' && t.text == "(":
			return p, "its select list computes (an aggregate, a function or a subquery)"
		case t.kind == 'k' && t.text != "AS":
			return p, fmt.Sprintf("%s in its select list", t.text)
		}
	}
	if !isK("FROM") {
		return p, "no FROM"
	}
	pos++
	if isO("(") {
		return p, "a subquery in FROM"
	}
	if isK("ONLY") {
		pos++
	}
	if peek().kind != 'i' {
		return p, "FROM does not name a table"
	}
	p.table = peek().text
	pos++
	if isO(".") {
		pos++
		if peek().kind != 'i' {
			return p, "FROM does not name a table"
		}
		p.schema, p.table = p.table, peek().text
		pos++
	}
	alias := ""
	if isK("AS") {
		pos++
	}
	if peek().kind == 'i' {
		alias = peek().text
		pos++
	}
	switch t := peek(); {
	case t.kind == 'o' && t.text == ",", t.kind == 'k' && (t.text == "JOIN" || t.text == "INNER" || t.text == "LEFT" ||
		t.text == "RIGHT" || t.text == "FULL" || t.text == "CROSS" || t.text == "NATURAL"):
		return p, "it reads more than one table (a join)"
	}
	// column reads [table.]column, the table being the one of FROM.
	column := func() (string, string) {
		t := peek()
		if t.kind != 'i' {
			return "", "a condition on something else than a column"
		}
		pos++
		if isO(".") {
			pos++
			if t.text != alias && t.text != p.table {
				return "", "a condition on a column of another table"
			}
			t = peek()
			if t.kind != 'i' {
				return "", "a condition on something else than a column"
			}
			pos++
		}
		if isO("(") {
			return "", "a function on a column"
		}
		return t.text, ""
	}
	// param reads a parameter: $n, ?, or MySQL's (_charset) ? of a string
	// with a character set introducer.
	param := func() bool {
		if isO("(") && pos+2 < len(toks) && toks[pos+1].kind == 'i' && strings.HasPrefix(toks[pos+1].text, "_") &&
			toks[pos+2].kind == 'o' && toks[pos+2].text == ")" {
			pos += 3
		}
		if peek().kind != 'p' {
			return false
		}
		pos++
		if isO("::") { // a PostgreSQL cast of the parameter
			pos++
			if peek().kind != 'i' {
				return false
			}
			pos++
		}
		return true
	}
	if isK("WHERE") {
		pos++
		for {
			if isK("NOT") || isK("EXISTS") || isO("(") {
				return p, "a condition that is not a column compared with a parameter (NOT, EXISTS, parentheses)"
			}
			col, why := column()
			if why != "" {
				return p, why
			}
			switch t := peek(); {
			case t.kind == 'o' && t.text == "=":
				pos++
				if !param() {
					return p, fmt.Sprintf("%s is compared with something else than a parameter", col)
				}
				if !slices.Contains(p.eq, col) {
					p.eq = append(p.eq, col)
				}
			case t.kind == 'o' && rangeOps[t.text] != "":
				pos++
				if !param() {
					return p, fmt.Sprintf("%s is compared with something else than a parameter", col)
				}
				if p.rangeCol != "" {
					return p, "two range conditions (an index sort key takes one)"
				}
				p.rangeCol, p.rangeOp = col, rangeOps[t.text]
			case t.kind == 'k' && t.text == "BETWEEN":
				return p, fmt.Sprintf("BETWEEN on %s (two values of one column, which init cannot name apart: write the pattern by hand with params:)", col)
			case t.kind == 'k' || t.kind == 'o':
				return p, fmt.Sprintf("%s %s on %s (not a comparison with a parameter)", t.text, strings.Join(nextWords(toks, pos+1), " "), col)
			default:
				return p, fmt.Sprintf("%s is compared with something else than a parameter", col)
			}
			if !isK("AND") {
				break
			}
			pos++
		}
	}
	if isK("OR") {
		return p, "OR in its condition"
	}
	if isK("GROUP") || isK("HAVING") || isK("UNION") || isK("INTERSECT") || isK("EXCEPT") || isK("WINDOW") {
		return p, peek().text
	}
	if isK("ORDER") {
		pos++
		if !isK("BY") {
			return p, "ORDER without BY"
		}
		pos++
		col, why := column()
		if why != "" {
			return p, "ORDER BY " + strings.TrimPrefix(why, "a condition on ")
		}
		p.orderCol = col
		if isK("ASC") {
			pos++
		} else if isK("DESC") {
			p.desc = true
			pos++
		}
		if isO(",") {
			return p, "ORDER BY two columns (an index sort key holds one)"
		}
		if isK("NULLS") || isK("COLLATE") {
			return p, fmt.Sprintf("ORDER BY %s %s", col, peek().text)
		}
		if p.rangeCol != "" && p.rangeCol != col {
			return p, fmt.Sprintf("a range on %s and an order by %s (an index sort key holds one column)", p.rangeCol, col)
		}
	}
	if isK("LIMIT") {
		pos++
		if peek().kind != 'p' && peek().kind != 'l' {
			return p, "a LIMIT that is not a number"
		}
		pos++
		p.limit = true
	}
	if pos < len(toks) {
		return p, fmt.Sprintf("%s %s", peek().text, strings.Join(nextWords(toks, pos+1), " "))
	}
	if len(p.eq) == 0 {
		return p, "no equality condition on a column (an index partition key needs one)"
	}
	return p, ""
}

// nextWords are up to two tokens from i, to name what was not understood.
func nextWords(toks []token, i int) []string {
	var out []string
	for ; i < len(toks) && len(out) < 2; i++ {
		out = append(out, toks[i].text)
	}
	return out
}

// sameSet reports whether a and b hold the same strings.
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

// written is an access pattern as written: its name and what its SQL
// reads (for a pattern of one entity).
type written struct {
	name string
	q    parsed
}

// answers reports whether a pattern of shape w answers statement q: the
// same table, the same columns compared for equality, the same range and
// order column.
func (w written) answers(q parsed) bool {
	return w.q.table == q.table && sameSet(w.q.eq, q.eq) && w.q.rangeCol == q.rangeCol &&
		w.q.rangeOp == q.rangeOp && w.q.orderCol == q.orderCol && (q.orderCol == "" || w.q.desc == q.desc)
}
