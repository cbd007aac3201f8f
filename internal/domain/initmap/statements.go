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
	"unicode/utf8"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
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
	if !utf8.ValidString(sql) {
		// Its names could not be given back as the text spells them.
		return parsed{}, "the statement is not UTF-8 text"
	}
	toks, ok := tokens(sql)
	if !ok {
		return parsed{}, "an unterminated quote (the statement was cut off) or an empty quoted name"
	}
	sp := &stmtParser{toks: toks}
	for _, clause := range []func() string{sp.selectList, sp.from, sp.where, sp.rest, sp.orderBy, sp.limit, sp.end} {
		if why := clause(); why != "" {
			return sp.p, why
		}
	}
	return sp.p, ""
}

// stmtParser reads a statement's tokens clause by clause into p; each
// clause method returns why the statement is not an access pattern, or "".
type stmtParser struct {
	toks  []token
	pos   int
	p     parsed
	alias string // FROM's alias of the table, or ""
}

func (sp *stmtParser) peek() token {
	if sp.pos < len(sp.toks) {
		return sp.toks[sp.pos]
	}
	return token{}
}

func (sp *stmtParser) isK(w string) bool { t := sp.peek(); return t.kind == 'k' && t.text == w }
func (sp *stmtParser) isO(o string) bool { t := sp.peek(); return t.kind == 'o' && t.text == o }

// selectList reads SELECT and its list: names and *, no expression (an
// aggregate or a function reads something else than rows).
func (sp *stmtParser) selectList() string {
	if !sp.isK("SELECT") {
		return "not a SELECT"
	}
	sp.pos++
	if sp.isK("DISTINCT") {
		return "SELECT DISTINCT"
	}
	for ; sp.pos < len(sp.toks) && !sp.isK("FROM"); sp.pos++ {
		switch t := sp.peek(); {
		case t.kind == 'o' && t.text == "(":
			return "its select list computes (an aggregate, a function or a subquery)"
		case t.kind == 'k' && t.text != "AS":
			return fmt.Sprintf("%s in its select list", t.text)
		}
	}
	return ""
}

// from reads FROM [ONLY] [schema.]table [[AS] alias]: one table, no join.
func (sp *stmtParser) from() string {
	if !sp.isK("FROM") {
		return "no FROM"
	}
	sp.pos++
	if sp.isO("(") {
		return "a subquery in FROM"
	}
	if sp.isK("ONLY") {
		sp.pos++
	}
	if sp.peek().kind != 'i' {
		return "FROM does not name a table"
	}
	sp.p.table = sp.peek().text
	sp.pos++
	if sp.isO(".") {
		sp.pos++
		if sp.peek().kind != 'i' {
			return "FROM does not name a table"
		}
		sp.p.schema, sp.p.table = sp.p.table, sp.peek().text
		sp.pos++
	}
	if sp.isK("AS") {
		sp.pos++
	}
	if sp.peek().kind == 'i' {
		sp.alias = sp.peek().text
		sp.pos++
	}
	switch t := sp.peek(); {
	case t.kind == 'o' && t.text == ",", t.kind == 'k' && (t.text == "JOIN" || t.text == "INNER" || t.text == "LEFT" ||
		t.text == "RIGHT" || t.text == "FULL" || t.text == "CROSS" || t.text == "NATURAL"):
		return "it reads more than one table (a join)"
	}
	return ""
}

// column reads [table.]column, the table being the one of FROM.
func (sp *stmtParser) column() (string, string) {
	t := sp.peek()
	if t.kind != 'i' {
		return "", "a condition on something else than a column"
	}
	sp.pos++
	if sp.isO(".") {
		sp.pos++
		if t.text != sp.alias && t.text != sp.p.table {
			return "", "a condition on a column of another table"
		}
		t = sp.peek()
		if t.kind != 'i' {
			return "", "a condition on something else than a column"
		}
		sp.pos++
	}
	if sp.isO("(") {
		return "", "a function on a column"
	}
	return t.text, ""
}

// param reads a parameter: $n, ?, or MySQL's (_charset) ? of a string
// with a character set introducer.
func (sp *stmtParser) param() bool {
	toks, pos := sp.toks, sp.pos
	if sp.isO("(") && pos+2 < len(toks) && toks[pos+1].kind == 'i' && strings.HasPrefix(toks[pos+1].text, "_") &&
		toks[pos+2].kind == 'o' && toks[pos+2].text == ")" {
		sp.pos += 3
	}
	if sp.peek().kind != 'p' {
		return false
	}
	sp.pos++
	if sp.isO("::") { // a PostgreSQL cast of the parameter
		sp.pos++
		if sp.peek().kind != 'i' {
			return false
		}
		sp.pos++
	}
	return true
}

// where reads WHERE's conditions: columns compared with parameters,
// joined by AND.
func (sp *stmtParser) where() string {
	if !sp.isK("WHERE") {
		return ""
	}
	sp.pos++
	for {
		if why := sp.condition(); why != "" {
			return why
		}
		if !sp.isK("AND") {
			return ""
		}
		sp.pos++
	}
}

// condition reads one condition: a column = a parameter, or one range
// comparison with a parameter.
func (sp *stmtParser) condition() string {
	if sp.isK("NOT") || sp.isK("EXISTS") || sp.isO("(") {
		return "a condition that is not a column compared with a parameter (NOT, EXISTS, parentheses)"
	}
	col, why := sp.column()
	if why != "" {
		return why
	}
	switch t := sp.peek(); {
	case t.kind == 'o' && t.text == "=":
		sp.pos++
		if !sp.param() {
			return fmt.Sprintf("%s is compared with something else than a parameter", col)
		}
		if !slices.Contains(sp.p.eq, col) {
			sp.p.eq = append(sp.p.eq, col)
		}
	case t.kind == 'o' && rangeOps[t.text] != "":
		sp.pos++
		if !sp.param() {
			return fmt.Sprintf("%s is compared with something else than a parameter", col)
		}
		if sp.p.rangeCol != "" {
			return "two range conditions (an index sort key takes one)"
		}
		sp.p.rangeCol, sp.p.rangeOp = col, rangeOps[t.text]
	case t.kind == 'k' && t.text == "BETWEEN":
		return fmt.Sprintf("BETWEEN on %s (two values of one column, which init cannot name apart: write the pattern by hand with params:)", col)
	case t.kind == 'k' || t.kind == 'o':
		return fmt.Sprintf("%s %s on %s (not a comparison with a parameter)", t.text, strings.Join(nextWords(sp.toks, sp.pos+1), " "), col)
	default:
		return fmt.Sprintf("%s is compared with something else than a parameter", col)
	}
	return ""
}

// rest refuses what may follow the conditions but no access pattern has.
func (sp *stmtParser) rest() string {
	if sp.isK("OR") {
		return "OR in its condition"
	}
	if sp.isK("GROUP") || sp.isK("HAVING") || sp.isK("UNION") || sp.isK("INTERSECT") || sp.isK("EXCEPT") || sp.isK("WINDOW") {
		return sp.peek().text
	}
	return ""
}

// orderBy reads ORDER BY one column [ASC|DESC], the range's column if
// there is one.
func (sp *stmtParser) orderBy() string {
	if !sp.isK("ORDER") {
		return ""
	}
	sp.pos++
	if !sp.isK("BY") {
		return "ORDER without BY"
	}
	sp.pos++
	col, why := sp.column()
	if why != "" {
		return "ORDER BY " + strings.TrimPrefix(why, "a condition on ")
	}
	sp.p.orderCol = col
	if sp.isK("ASC") {
		sp.pos++
	} else if sp.isK("DESC") {
		sp.p.desc = true
		sp.pos++
	}
	if sp.isO(",") {
		return "ORDER BY two columns (an index sort key holds one)"
	}
	if sp.isK("NULLS") || sp.isK("COLLATE") {
		return fmt.Sprintf("ORDER BY %s %s", col, sp.peek().text)
	}
	if sp.p.rangeCol != "" && sp.p.rangeCol != col {
		return fmt.Sprintf("a range on %s and an order by %s (an index sort key holds one column)", sp.p.rangeCol, col)
	}
	return ""
}

// limit reads LIMIT with a number or a parameter.
func (sp *stmtParser) limit() string {
	if !sp.isK("LIMIT") {
		return ""
	}
	sp.pos++
	if sp.peek().kind != 'p' && sp.peek().kind != 'l' {
		return "a LIMIT that is not a number"
	}
	sp.pos++
	sp.p.limit = true
	return ""
}

// end refuses tokens left over, and a statement with no equality (an
// index partition key needs one).
func (sp *stmtParser) end() string {
	if sp.pos < len(sp.toks) {
		return fmt.Sprintf("%s %s", sp.peek().text, strings.Join(nextWords(sp.toks, sp.pos+1), " "))
	}
	if len(sp.p.eq) == 0 {
		return "no equality condition on a column (an index partition key needs one)"
	}
	return ""
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
