package keyproof

import (
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// Proof says whether the plan's table-key templates are proven
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
type Proof struct {
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
	Entity *mapping.Entity
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

// Prove applies the rule of Proof to the plan.
func Prove(p *mapping.Plan) Proof {
	var fails, oks, conds []string
	var checks []DataCheck
	for _, e := range p.Entities {
		why, ok, cs := keyInjective(p, e)
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
			if !entitiesDisjoint(p, a, b) {
				pa, sa := a.KeyTemplates()
				pb, sb := b.KeyTemplates()
				fails = append(fails, fmt.Sprintf("entities %s and %s: their keys (%s) and (%s) are not told apart by a constant prefix or suffix",
					a.Name, b.Name, keyPair(pa, sa), keyPair(pb, sb)))
			}
		}
	}
	if len(fails) > 0 {
		return Proof{Reasons: append(conds, fails...)}
	}
	if len(conds) > 0 {
		return Proof{Reasons: conds, Checks: checks}
	}
	if len(p.Entities) > 1 {
		oks = append(oks, "distinct entities' keys differ in a constant prefix or suffix")
	}
	return Proof{Proven: true, Reasons: oks}
}

// CheckData completes a proof whose only gaps are its Checks with what the
// data shows: holds(d) reports whether some row holds d's separator (an
// error leaves the check on). When none does, the proof is Proven and
// its reasons name the columns checked (where says on what data: "of
// this snapshot"); otherwise the reasons name the columns whose values
// hold the separator. A proof without Checks is returned as it is.
func (k Proof) CheckData(where string, holds func(DataCheck) (bool, error)) (Proof, error) {
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
		return Proof{Reasons: append(held, k.Reasons...)}, nil
	}
	out := Proof{Proven: true, OnData: true}
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
func shape(c *introspect.Column, fmts []mapping.Formatter) placeholderShape {
	var rest []mapping.Formatter
	for _, f := range fmts {
		if f.Name == "default" {
			if c.Nullable {
				return placeholderShape{alpha: anyByte(), why: fmt.Sprintf("{%s|default:%s}: column %s may be NULL, and the default may equal a value", c.Name, f.Arg, c.Name)}
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
		return placeholderShape{alpha: anyByte(), why: fmt.Sprintf("{%s|%s}: %s", c.Name, f.Name, why)}
	}
	switch f.Name {
	case "pad":
		if c.Kind == introspect.KindInt {
			return placeholderShape{injective: true, width: f.N, alpha: bytesOf(digits)}
		}
		return placeholderShape{injective: true, alpha: bytesOf(digits + ".")}
	case "desc":
		switch c.Kind {
		case introspect.KindInt:
			return placeholderShape{injective: true, width: f.N, alpha: bytesOf(digits)}
		case introspect.KindDecimal:
			scale, ok := mapping.DeclaredScale(c)
			if !ok {
				return bad("no declared scale")
			}
			w := f.N
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
		return placeholderShape{alpha: bytesOf(digits), why: fmt.Sprintf("{%s|shard:%d}: many values share a bucket", c.Name, f.N)}
	}
	return bad("does not keep every value apart") // lower, upper
}

// key is one of an entity's table-key templates as compiled: the table's
// key attribute it renders, the template as written and its parts, each
// placeholder with its column.
type key struct {
	attr  mapping.KeyAttr
	src   string
	parts []mapping.KeyPart
}

// keysOf are e's pk template and, when the table has a sort key, its sk
// template (nil otherwise).
func keysOf(p *mapping.Plan, e *mapping.Entity) (pk, sk *key) {
	pkSrc, skSrc := e.KeyTemplates()
	pkParts, skParts := e.KeyParts()
	pk = &key{attr: p.Table.PK, src: pkSrc, parts: pkParts}
	if p.Table.SK != nil {
		sk = &key{attr: *p.Table.SK, src: skSrc, parts: skParts}
	}
	return pk, sk
}

// templateProof checks rule 3 for one key template and adds the columns
// it renders injectively to covered.
//
// A plain text column followed by an ASCII separator it may hold is not a
// failure when checks is not nil: the condition is appended to *checks
// and the proof goes on as if the column never held the separator.
func templateProof(k *key, covered map[string]bool, e *mapping.Entity, checks *[]DataCheck) (string, bool) {
	parts := k.parts
	for i, p := range parts {
		if p.Field == "" {
			continue
		}
		s := shape(p.Column, p.Formatters)
		if s.injective {
			covered[p.Field] = true
		}
		if i == len(parts)-1 || s.width > 0 {
			continue
		}
		next := parts[i+1]
		if next.Field != "" {
			return fmt.Sprintf("%s %s: {%s} is followed by another placeholder and has no fixed width", k.attr.Name, k.src, p.Field), false
		}
		if s.alpha.has(next.Literal[0]) {
			why := fmt.Sprintf("%s %s: {%s} (%s) may contain %q, which follows it", k.attr.Name, k.src, p.Field, p.Column.Type, next.Literal[:1])
			if checks != nil && dataCheckable(p.Column, p.Formatters, next.Literal[0]) {
				*checks = append(*checks, DataCheck{Entity: e, Column: p.Column.Name, Sep: next.Literal[0], Why: why})
				continue
			}
			return why, false
		}
	}
	return "", true
}

// dataCheckable reports whether "no value of c holds sep" can be checked
// exactly in SQL and makes c end where sep starts: c is text rendered as
// read (no formatter, not converted from another charset, not an
// expression or another form of a column) and sep is ASCII, not a space
// (a CHAR column's padding is not part of its value on every path).
func dataCheckable(c *introspect.Column, fmts []mapping.Formatter, sep byte) bool {
	return c.Kind == introspect.KindString && len(fmts) == 0 && c.Charset == "" && c.Expr == "" &&
		c.Read == "" && c.From == "" && sep < 0x80 && sep > ' ' && sep != 0x7f
}

// keyInjective checks rules 1 to 4 for one entity. checks are the
// conditions on the data the proof rests on (nil: none).
func keyInjective(p *mapping.Plan, e *mapping.Entity) (string, bool, []DataCheck) {
	var checks []DataCheck
	why, ok := keyInjectiveOn(p, e, &checks)
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

func keyInjectiveOn(p *mapping.Plan, e *mapping.Entity, checks *[]DataCheck) (string, bool) {
	keys, declared := e.RowKey()
	s := p.Schema
	switch {
	case !declared && len(e.Table.PrimaryKey) == 0:
		return fmt.Sprintf("%s has no primary key: its rows may repeat", e.Table.Label()), false
	case declared && s != nil && s.Engine.Dialect().CollatedKeyEquality():
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
	check := func(k *key) (string, bool) {
		switch k.attr.Type {
		case "B":
			return fmt.Sprintf("%s is binary", k.attr.Name), false
		case "N":
			if len(k.parts) != 1 || k.parts[0].Field == "" || len(k.parts[0].Formatters) > 0 || k.parts[0].Column.Kind != introspect.KindInt {
				return fmt.Sprintf("%s is a number: only a single integer placeholder is proven", k.attr.Name), false
			}
			covered[k.parts[0].Field] = true
			return "", true
		}
		return templateProof(k, covered, e, checks)
	}
	pk, sk := keysOf(p, e)
	if why, ok := check(pk); !ok {
		return why, false
	}
	if sk != nil {
		if why, ok := check(sk); !ok {
			return why, false
		}
	}
	var names []string
	for _, c := range keys {
		if !covered[c.Name] {
			for _, p := range append(pk.parts, partsOf(sk)...) {
				if p.Field == c.Name {
					return shape(c, p.Formatters).why, false
				}
			}
			return fmt.Sprintf("the key column %s is not in the key (%s)", c.Name, keyPair(e.KeyTemplates())), false
		}
		names = append(names, c.Name)
	}
	what := "primary key"
	if declared {
		what = "declared key"
	}
	return fmt.Sprintf("the %s (%s) is rendered whole into a key that can be read back", what, strings.Join(names, ", ")), true
}

func partsOf(k *key) []mapping.KeyPart {
	if k == nil {
		return nil
	}
	return k.parts
}

// typeName names a column's kind with its declared type, as mapping's
// messages do: "date", or "numeric(10,2) (decimal)" where they differ.
func typeName(c *introspect.Column) string {
	if c.Type == "" || c.Type == string(c.Kind) {
		return string(c.Kind)
	}
	return c.Type + " (" + string(c.Kind) + ")"
}

// entitiesDisjoint checks rule 5 for two entities.
func entitiesDisjoint(p *mapping.Plan, a, b *mapping.Entity) bool {
	apk, ask := keysOf(p, a)
	bpk, bsk := keysOf(p, b)
	if templatesDisjoint(apk, bpk) {
		return true
	}
	return ask != nil && bsk != nil && templatesDisjoint(ask, bsk)
}

// templatesDisjoint reports whether two templates can never render the
// same text.
func templatesDisjoint(a, b *key) bool {
	pa, pb := prefix(a), prefix(b)
	ca, cb := constant(a), constant(b)
	if ca {
		pa = literal(a)
	}
	if cb {
		pb = literal(b)
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
	sa, sb := suffix(a), suffix(b)
	return !strings.HasSuffix(sa, sb) && !strings.HasSuffix(sb, sa)
}

// prefix is the literal text before the first placeholder.
func prefix(k *key) string {
	if len(k.parts) > 0 && k.parts[0].Field == "" {
		return k.parts[0].Literal
	}
	return ""
}

// constant reports whether the template has no placeholders.
func constant(k *key) bool {
	for _, p := range k.parts {
		if p.Field != "" {
			return false
		}
	}
	return true
}

// literal is a constant template's text.
func literal(k *key) string {
	var b strings.Builder
	for _, p := range k.parts {
		b.WriteString(p.Literal)
	}
	return b.String()
}

// suffix is the literal text after the last placeholder.
func suffix(k *key) string {
	if n := len(k.parts); n > 0 && k.parts[n-1].Field == "" {
		return k.parts[n-1].Literal
	}
	return ""
}

// minLen is the fewest bytes a template renders: its literals and the fixed
// widths of its placeholders.
func minLen(k *key) int {
	n := 0
	for _, p := range k.parts {
		if p.Field == "" {
			n += len(p.Literal)
			continue
		}
		n += shape(p.Column, p.Formatters).width
	}
	return n
}

// String words a Proof for validate and migrate: one line saying
// whether the collision check is needed, then the reasons.
func (k Proof) String() string {
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
