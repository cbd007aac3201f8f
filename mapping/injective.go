package mapping

import (
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// KeyProof says whether the plan's table-key templates are proven
// injective: no two source rows of one run can render the same table key,
// so that migrate's key collision check is unnecessary.
//
// The rule (docs/mapping.md, "Key collisions"), decided from the mapping
// and the schema alone:
//
//  1. Each entity's rows are unique on its source key: the table's primary
//     key (the engine enforces it), or a declared key (key:, a view, a
//     query), which Stream rejects when repeated — except on MySQL/MariaDB,
//     where a declared key with a text column may repeat unseen (under a
//     _ci or PAD SPACE collation equal keys need not be adjacent).
//  2. Every key column appears in the entity's pk or sk template through an
//     injective formatting: no formatter (integers, decimals, booleans,
//     text, dates and timestamps at their declared precision), pad:N and
//     desc on numbers, iso, date on a date, unix on a date or timestamp(0),
//     unixms on a date or a timestamp of at most 3 fractional digits, desc
//     on a date or timestamp, hex, base64; default:X only on a NOT NULL
//     column (it never applies).
//  3. Every placeholder of the pk and sk templates (key column or not) ends
//     where it can be told: it is the template's last part, or it has a
//     fixed width (pad:N, desc, iso, date, unix, unixms), or the literal
//     after it starts with a byte its value can never hold (such as "#"
//     after an integer, or after an enum whose values have no "#").
//  4. A table key attribute of type N is a single placeholder of an
//     integer column; of type B, never proven.
//  5. Distinct entities are told apart: for every pair, the pk or the sk
//     templates cannot render the same text, because their constant
//     prefixes (or suffixes) differ, or one is constant and shorter than
//     anything the other renders.
//
// The rule is sufficient, not necessary: a mapping it cannot prove keeps
// the collision check, which is then exact.
//
// Where rule 3 fails only because a plain text column may hold the ASCII
// byte that follows it (the "#" of "{service}#"), the proof names that
// condition as a DataCheck instead of giving up: when no row of the
// entity holds the byte in that column, the rule holds for those rows.
// Whoever reads the rows (migrate, inside its snapshot) can ask the
// database, and the keys are then proven distinct on that data.
type KeyProof struct {
	// Proven is true when the rule above holds for every entity and pair.
	Proven bool
	// Reasons says why, one line per entity (and one for the pairs) when
	// Proven; otherwise it lists what the rule could not show.
	Reasons []string
	// Checks, when Proven is false, are the conditions on the data under
	// which it would be true: every other part of the rule holds. Nil
	// when something else fails (the data cannot help then).
	Checks []DataCheck
	// OnData is true when Proven rests on Checks found to hold on the data
	// (CheckData): for those rows only, not for any data the schema allows.
	OnData bool
}

// A DataCheck is a condition the proof leaves to the data: no row of the
// entity (its table, view or query, its where) holds Sep in Column.
// Column is a text column rendered as it is read (no formatter, no
// conversion), so its text is its value, and Sep is an ASCII byte other
// than a space: a value holds the byte exactly when it holds that
// character, whatever the collation, and a CHAR column's padding does not
// matter.
type DataCheck struct {
	Entity *Entity
	Column string
	Sep    byte
	// Why is what the static rule says of it: "SK PERSONAL#{service}#…:
	// {service} (character varying(32)) may contain "#", which follows it".
	Why string
}

// String names the condition: personal.service holds no "#".
func (d DataCheck) String() string {
	return fmt.Sprintf("%s holds no %q", d.Column, string(d.Sep))
}

// ProveKeysDistinct applies the rule of KeyProof to the plan.
func (p *Plan) ProveKeysDistinct() KeyProof {
	var fails, oks, conds []string
	var checks []DataCheck
	for _, e := range p.Entities {
		why, ok, cs := e.keyInjective(p.Schema)
		switch {
		case !ok:
			fails = append(fails, fmt.Sprintf("entity %s: %s", e.Name, why))
		case len(cs) > 0:
			conds = append(conds, fmt.Sprintf("entity %s: %s", e.Name, why))
			checks = append(checks, cs...)
		default:
			oks = append(oks, fmt.Sprintf("entity %s: %s", e.Name, why))
		}
	}
	for i, a := range p.Entities {
		for _, b := range p.Entities[i+1:] {
			if !entitiesDisjoint(a, b) {
				pa, sa := a.KeyTemplates()
				pb, sb := b.KeyTemplates()
				fails = append(fails, fmt.Sprintf("entities %s and %s: their keys (%s) and (%s) are not told apart by a constant prefix or suffix",
					a.Name, b.Name, keyPair(pa, sa), keyPair(pb, sb)))
			}
		}
	}
	if len(fails) > 0 {
		return KeyProof{Reasons: append(conds, fails...)}
	}
	if len(conds) > 0 {
		return KeyProof{Reasons: conds, Checks: checks}
	}
	if len(p.Entities) > 1 {
		oks = append(oks, "distinct entities' keys differ in a constant prefix or suffix")
	}
	return KeyProof{Proven: true, Reasons: oks}
}

// CheckData completes a proof whose only gaps are its Checks with what the
// data shows: holds(d) reports whether some row holds d's separator (an
// error leaves the check on). When none does, the proof is Proven and
// its reasons name the columns checked (where says on what data: "of
// this snapshot"); otherwise the reasons name the columns whose values
// hold the separator. A proof without Checks is returned as it is.
func (k KeyProof) CheckData(where string, holds func(DataCheck) (bool, error)) (KeyProof, error) {
	if k.Proven || len(k.Checks) == 0 {
		return k, nil
	}
	var clean, held []string
	for _, d := range k.Checks {
		h, err := holds(d)
		if err != nil {
			return k, err
		}
		label := fmt.Sprintf("entity %s: %s", d.Entity.Name, d.Column)
		if h {
			held = append(held, fmt.Sprintf("%s holds %q in a value, and the key needs it not to", label, string(d.Sep)))
		} else {
			clean = append(clean, fmt.Sprintf("%s holds no %q", label, string(d.Sep)))
		}
	}
	if len(held) > 0 {
		return KeyProof{Reasons: append(held, k.Reasons...)}, nil
	}
	out := KeyProof{Proven: true, OnData: true}
	out.Reasons = append(out.Reasons, "proven on the data "+where+": "+strings.Join(clean, "; "))
	out.Reasons = append(out.Reasons, k.Reasons...)
	return out, nil
}

func keyPair(pk, sk string) string {
	if sk == "" {
		return pk
	}
	return pk + " / " + sk
}

// alphabet is the set of bytes a rendered value may hold; all for any.
type alphabet struct {
	all bool
	set [256]bool
}

func anyByte() *alphabet { return &alphabet{all: true} }

func bytesOf(ss ...string) *alphabet {
	a := &alphabet{}
	for _, s := range ss {
		for i := 0; i < len(s); i++ {
			a.set[s[i]] = true
		}
	}
	return a
}

func (a *alphabet) has(c byte) bool { return a.all || a.set[c] }

const (
	digits     = "0123456789"
	numberText = digits + "-.E"
	timeText   = digits + "-:T.Z"
	hexText    = digits + "abcdef"
	base64Text = digits + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/="
)

// placeholderShape is what the proof knows of one placeholder's text:
// whether it is an injective function of its column, its width (0 when it
// varies), and which bytes it may hold.
type placeholderShape struct {
	injective bool
	width     int
	alpha     *alphabet
	why       string // when not injective
}

// shape analyses one placeholder of column c with formatters fmts.
func shape(c *introspect.Column, fmts []formatter) placeholderShape {
	var rest []formatter
	for _, f := range fmts {
		if f.name == "default" {
			if c.Nullable {
				return placeholderShape{alpha: anyByte(), why: fmt.Sprintf("{%s|default:%s}: column %s may be NULL, and the default may equal a value", c.Name, f.arg, c.Name)}
			}
			continue
		}
		rest = append(rest, f)
	}
	if len(rest) > 1 {
		return placeholderShape{alpha: anyByte(), why: fmt.Sprintf("{%s}: a chain of formatters is not analysed", c.Name)}
	}
	isTime := c.Kind == introspect.KindDate || c.Kind == introspect.KindTimestamp || c.Kind == introspect.KindTimestampTZ
	if len(rest) == 0 {
		switch c.Kind {
		case introspect.KindInt:
			return placeholderShape{injective: true, alpha: bytesOf(digits + "-")}
		case introspect.KindDecimal:
			return placeholderShape{injective: true, alpha: bytesOf(numberText)}
		case introspect.KindBool:
			return placeholderShape{injective: true, alpha: bytesOf("truefals")}
		case introspect.KindString:
			if c.Charset != "" {
				return placeholderShape{alpha: anyByte(), why: fmt.Sprintf("{%s}: the %s text of column %s reaches remodel converted", c.Name, c.Charset, c.Name)}
			}
			if c.Values != nil { // an enum: its values are all it holds
				return placeholderShape{injective: true, alpha: bytesOf(c.Values...)}
			}
			return placeholderShape{injective: true, alpha: anyByte()}
		case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
			return placeholderShape{injective: true, alpha: bytesOf(timeText)}
		}
		return placeholderShape{alpha: anyByte(), why: fmt.Sprintf("{%s}: a %s column is not analysed", c.Name, c.Kind)}
	}
	f := rest[0]
	bad := func(why string) placeholderShape {
		return placeholderShape{alpha: anyByte(), why: fmt.Sprintf("{%s|%s}: %s", c.Name, f.name, why)}
	}
	switch f.name {
	case "pad":
		if c.Kind == introspect.KindInt {
			return placeholderShape{injective: true, width: f.n, alpha: bytesOf(digits)}
		}
		return placeholderShape{injective: true, alpha: bytesOf(digits + ".")}
	case "desc":
		switch c.Kind {
		case introspect.KindInt:
			return placeholderShape{injective: true, width: f.n, alpha: bytesOf(digits)}
		case introspect.KindDecimal:
			scale, ok := declaredScale(c)
			if !ok {
				return bad("no declared scale")
			}
			w := f.n
			if scale > 0 {
				w += 1 + scale
			}
			return placeholderShape{injective: true, width: w, alpha: bytesOf(digits + ".")}
		case introspect.KindDate:
			return placeholderShape{injective: true, width: 7, alpha: bytesOf(digits)}
		default:
			return placeholderShape{injective: true, width: 18, alpha: bytesOf(digits)}
		}
	case "iso":
		return placeholderShape{injective: true, width: 27, alpha: bytesOf(timeText)}
	case "date":
		if c.Kind != introspect.KindDate {
			return bad("keeps only the date of a timestamp")
		}
		return placeholderShape{injective: true, width: 10, alpha: bytesOf(timeText)}
	case "unix":
		if c.Kind != introspect.KindDate && !(isTime && c.Precision == 0) {
			return bad("drops the fraction of a second the column may hold")
		}
		return placeholderShape{injective: true, width: 10, alpha: bytesOf(digits)}
	case "unixms":
		if c.Kind != introspect.KindDate && !(isTime && c.Precision <= 3) {
			return bad("drops the digits past milliseconds the column may hold")
		}
		return placeholderShape{injective: true, width: 13, alpha: bytesOf(digits)}
	case "hex":
		return placeholderShape{injective: true, alpha: bytesOf(hexText)}
	case "base64":
		return placeholderShape{injective: true, alpha: bytesOf(base64Text)}
	case "shard":
		return placeholderShape{alpha: bytesOf(digits), why: fmt.Sprintf("{%s|shard:%d}: many values share a bucket", c.Name, f.n)}
	}
	return bad("does not keep every value apart") // lower, upper
}

// templateProof checks rule 3 for one bound template and adds the columns
// it renders injectively to covered.
//
// A plain text column followed by an ASCII separator it may hold is not a
// failure when checks is not nil: the condition is appended to *checks
// and the proof goes on as if the column never held the separator.
func templateProof(b *bound, attr string, covered map[string]bool, e *Entity, checks *[]DataCheck) (string, bool) {
	parts := b.t.parts
	for i, p := range parts {
		if p.field == "" {
			continue
		}
		s := shape(b.cols[i], p.fmts)
		if s.injective {
			covered[p.field] = true
		}
		if i == len(parts)-1 || s.width > 0 {
			continue
		}
		next := parts[i+1]
		if next.field != "" {
			return fmt.Sprintf("%s %s: {%s} is followed by another placeholder and has no fixed width", attr, b.t.Src, p.field), false
		}
		if s.alpha.has(next.lit[0]) {
			if checks != nil && dataCheckable(b.cols[i], p.fmts, next.lit[0]) {
				*checks = append(*checks, DataCheck{Entity: e, Column: b.cols[i].Name, Sep: next.lit[0],
					Why: fmt.Sprintf("%s %s: {%s} (%s) may contain %q, which follows it", attr, b.t.Src, p.field, b.cols[i].Type, next.lit[:1])})
				continue
			}
			return fmt.Sprintf("%s %s: {%s} (%s) may contain %q, which follows it", attr, b.t.Src, p.field, b.cols[i].Type, next.lit[:1]), false
		}
	}
	return "", true
}

// dataCheckable reports whether "no value of c holds sep" can be checked
// exactly in SQL and makes c end where sep starts: c is text rendered as
// read (no formatter, not converted from another charset, not an
// expression or another form of a column) and sep is ASCII, not a space
// (a CHAR column's padding is not part of its value on every path).
func dataCheckable(c *introspect.Column, fmts []formatter, sep byte) bool {
	return c.Kind == introspect.KindString && len(fmts) == 0 && c.Charset == "" && c.Expr == "" &&
		c.Read == "" && c.From == "" && sep < 0x80 && sep > ' ' && sep != 0x7f
}

// keyInjective checks rules 1 to 4 for one entity. checks are the
// conditions on the data the proof rests on (nil: none).
func (e *Entity) keyInjective(s *introspect.Schema) (string, bool, []DataCheck) {
	var checks []DataCheck
	why, ok := e.keyInjectiveOn(s, &checks)
	if !ok {
		return why, false, nil
	}
	if len(checks) > 0 {
		var whys []string
		for _, d := range checks {
			whys = append(whys, d.Why)
		}
		why = strings.Join(whys, "; ") + " (proven only on data where no value does: migrate checks its snapshot)"
	}
	return why, true, checks
}

func (e *Entity) keyInjectiveOn(s *introspect.Schema, checks *[]DataCheck) (string, bool) {
	keys := make([]*introspect.Column, len(e.keyCols))
	for i, k := range e.keyCols {
		keys[i] = e.Columns[k]
	}
	switch {
	case !e.keyDeclared && len(e.Table.PrimaryKey) == 0:
		return fmt.Sprintf("%s has no primary key: its rows may repeat", e.Table.Label()), false
	case e.keyDeclared && s != nil && s.Engine.Dialect().CollatedKeyEquality():
		for _, c := range keys {
			switch c.Kind {
			case introspect.KindInt, introspect.KindDecimal, introspect.KindBool, introspect.KindDate,
				introspect.KindTimestamp, introspect.KindTimestampTZ, introspect.KindBytes:
			default:
				return fmt.Sprintf("the declared key column %s (%s) may hold equal values apart (MySQL collations), which the repeated-key check does not see", c.Name, typeName(c)), false
			}
		}
	}
	for _, c := range keys {
		if c.Kind == introspect.KindFloat {
			return fmt.Sprintf("the key column %s is a float", c.Name), false
		}
	}
	covered := map[string]bool{}
	t := e.table
	check := func(b *bound, k KeyAttr) (string, bool) {
		switch k.Type {
		case "B":
			return fmt.Sprintf("%s is binary", k.Name), false
		case "N":
			if len(b.t.parts) != 1 || b.t.parts[0].field == "" || len(b.t.parts[0].fmts) > 0 || b.cols[0].Kind != introspect.KindInt {
				return fmt.Sprintf("%s is a number: only a single integer placeholder is proven", k.Name), false
			}
			covered[b.t.parts[0].field] = true
			return "", true
		}
		return templateProof(b, k.Name, covered, e, checks)
	}
	if why, ok := check(e.pk, t.PK); !ok {
		return why, false
	}
	if e.sk != nil {
		if why, ok := check(e.sk, *t.SK); !ok {
			return why, false
		}
	}
	var names []string
	for _, c := range keys {
		if !covered[c.Name] {
			pk, sk := e.KeyTemplates()
			for _, p := range append(e.pk.t.parts, partsOf(e.sk)...) {
				if p.field == c.Name {
					s := shape(c, p.fmts)
					return s.why, false
				}
			}
			return fmt.Sprintf("the key column %s is not in the key (%s)", c.Name, keyPair(pk, sk)), false
		}
		names = append(names, c.Name)
	}
	what := "primary key"
	if e.keyDeclared {
		what = "declared key"
	}
	return fmt.Sprintf("the %s (%s) is rendered whole into a key that can be read back", what, strings.Join(names, ", ")), true
}

func partsOf(b *bound) []part {
	if b == nil {
		return nil
	}
	return b.t.parts
}

// entitiesDisjoint checks rule 5 for two entities.
func entitiesDisjoint(a, b *Entity) bool {
	if templatesDisjoint(a.pk, b.pk) {
		return true
	}
	return a.sk != nil && b.sk != nil && templatesDisjoint(a.sk, b.sk)
}

// templatesDisjoint reports whether two templates can never render the
// same text.
func templatesDisjoint(a, b *bound) bool {
	pa, pb := a.t.Prefix(), b.t.Prefix()
	ca, cb := a.t.Constant(), b.t.Constant()
	if ca {
		pa = a.t.parts0()
	}
	if cb {
		pb = b.t.parts0()
	}
	switch {
	case ca && cb:
		return pa != pb
	case !strings.HasPrefix(pa, pb) && !strings.HasPrefix(pb, pa):
		return true
	case ca:
		return minLen(b) > len(pa)
	case cb:
		return minLen(a) > len(pb)
	}
	sa, sb := suffix(a.t), suffix(b.t)
	return !strings.HasSuffix(sa, sb) && !strings.HasSuffix(sb, sa)
}

// parts0 is a constant template's text.
func (t *Template) parts0() string {
	var b strings.Builder
	for _, p := range t.parts {
		b.WriteString(p.lit)
	}
	return b.String()
}

// suffix is the literal text after the last placeholder.
func suffix(t *Template) string {
	if n := len(t.parts); n > 0 && t.parts[n-1].field == "" {
		return t.parts[n-1].lit
	}
	return ""
}

// minLen is the fewest bytes a template renders: its literals and the fixed
// widths of its placeholders.
func minLen(b *bound) int {
	n := 0
	for i, p := range b.t.parts {
		if p.field == "" {
			n += len(p.lit)
			continue
		}
		n += shape(b.cols[i], p.fmts).width
	}
	return n
}

// String words a KeyProof for validate and migrate: one line saying
// whether the collision check is needed, then the reasons.
func (k KeyProof) String() string {
	var b strings.Builder
	switch {
	case k.OnData:
		b.WriteString("key collision check: proven unnecessary on the data checked (the table keys are injective over each entity's source key where no value holds the separator after it)")
	case k.Proven:
		b.WriteString("key collision check: proven unnecessary (the table keys are injective over each entity's source key)")
	case len(k.Checks) > 0:
		b.WriteString("key collision check: needed unless the data shows the columns below hold no separator after them (migrate checks that in its snapshot)")
	default:
		b.WriteString("key collision check: needed (the table keys are not proven injective)")
	}
	for _, r := range k.Reasons {
		b.WriteString("\n  " + r)
	}
	return b.String()
}
