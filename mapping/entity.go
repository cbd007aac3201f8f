package mapping

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/introspect"
)

// DynamoDB's limits that Render checks before anything is written.
const (
	MaxItemSize = 400 * 1024
	MaxPKSize   = 2048
	MaxSKSize   = 1024
)

// Item is one DynamoDB item.
type Item = map[string]types.AttributeValue

// Entity is a compiled entity: the rows of one source table, view or query
// and how each becomes an item.
type Entity struct {
	Name string
	// Table is what the source reads: a table, a view, or a query's result
	// (Table.Query), with the entity's key as its PrimaryKey and, after the
	// columns, one boolean column per set attribute with a condition
	// (Column.Expr), which the source evaluates in the same statement.
	Table *introspect.Table
	Where string
	// Columns are the columns the source reads for each row, in order; a row
	// passed to Render holds one canonical value per column.
	Columns []*introspect.Column

	table   *Table
	keyCols []int
	// keyDeclared is set when the key that names rows is the mapping's
	// (key:), which the source does not enforce: Stream checks it.
	keyDeclared bool
	// keyCollated is set when the engine compares (and so orders) key
	// texts by their collation (MySQL's _ci): Stream then looks for a
	// repeated key among the rows the collation sorts together.
	keyCollated bool
	// dialect is the source engine's (follow-back asks it whether spatial
	// values are written back).
	dialect introspect.Dialect
	pk, sk  *bound
	attrs   []attrRule
	sets    []setRule
	ttl     *ttlRule
	embeds  []*Embed // child rows, at len(Columns)+i of a row (embed.go)

	// What RenderSized allocates for a row, counted once (prepare): the
	// entity attribute's value, which every item shares, how many S and N
	// values of the row it can hand out of one allocation each, and the
	// bytes of the row's texts.
	nameAV   types.AttributeValue
	markers  []markerItem // table.markers, with their values
	nS, nN   int
	textHint int
}

// prepare counts what RenderSized allocates for a row of e.
func (e *Entity) prepare() {
	e.nameAV = &types.AttributeValueMemberS{Value: e.Name}
	e.markers = e.markerItems()
	e.nS, e.nN, e.textHint = 0, 0, 0
	count := func(keyType string) {
		if keyType == "N" {
			e.nN++
		} else {
			e.nS++
		}
	}
	count(e.table.PK.Type)
	e.textHint += e.pk.limit
	if e.sk != nil {
		count(e.table.SK.Type)
		e.textHint += e.sk.limit
	}
	for _, a := range e.attrs {
		if a.typ != "" {
			continue // ConvertAs allocates its own
		}
		switch a.col.Kind {
		case introspect.KindInt:
			e.nN++
			e.textHint += 8
		case introspect.KindDecimal, introspect.KindFloat:
			e.nN++
		case introspect.KindString, introspect.KindTime, introspect.KindGeometry:
			e.nS++
		case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
			e.nS++
			e.textHint += 20 + a.col.Precision
		}
	}
	for _, st := range e.sets {
		count(st.typ)
		e.textHint += st.t.limit
	}
	if e.ttl != nil {
		e.nN++
		e.textHint += 12
	}
}

// rowAlloc hands out the S and N values of one row's item from one
// allocation each, and writes the texts it makes (keys, numbers,
// timestamps) side by side in one buffer, each value a part of it. Nothing
// written is ever changed (strings.Builder only appends), so the parts stay
// valid strings; they live as long as the item.
type rowAlloc struct {
	ss   slab[types.AttributeValueMemberS]
	ns   slab[types.AttributeValueMemberN]
	nS   int
	nN   int
	text strings.Builder
}

func (a *rowAlloc) s(v string) *types.AttributeValueMemberS {
	x := a.ss.next(a.nS)
	x.Value = v
	return x
}

func (a *rowAlloc) n(v string) *types.AttributeValueMemberN {
	x := a.ns.next(a.nN)
	x.Value = v
	return x
}

// keep writes b at the end of the row's texts and returns that part.
func (a *rowAlloc) keep(b []byte) string {
	start := a.text.Len()
	a.text.Write(b)
	return a.text.String()[start:]
}

// scalarKind reports whether Convert makes a scalar of column c's value
// (a JSON document, an array or a set it reads another way).
func scalarKind(c *introspect.Column) bool {
	return c.Kind != introspect.KindJSON && c.Kind != introspect.KindArray && c.Kind != introspect.KindSet
}

// convert is Convert, with the row's allocations, and the value's size.
func (a *rowAlloc) convert(c *introspect.Column, v any) (types.AttributeValue, int, error) {
	switch x := v.(type) {
	case nil:
		return nil, 0, nil
	case error:
		return nil, 0, x
	case int64:
		if scalarKind(c) {
			var buf [20]byte
			n := a.keep(strconv.AppendInt(buf[:0], x, 10))
			return a.n(n), numberSize(n), nil
		}
	case time.Time:
		if scalarKind(c) {
			var buf [64]byte
			s := a.keep(appendTime(buf[:0], c, x))
			return a.s(s), len(s), nil
		}
	case bool:
		if scalarKind(c) {
			if x {
				return avTrue, 1, nil
			}
			return avFalse, 1, nil
		}
	case string:
		switch c.Kind {
		case introspect.KindDecimal, introspect.KindInt:
			n, err := normalizeNumber(x)
			if err != nil {
				return nil, 0, err
			}
			return a.n(n), numberSize(n), nil
		case introspect.KindJSON, introspect.KindArray, introspect.KindSet:
		default:
			return a.s(x), len(x), nil
		}
	case []byte:
		if c.Kind == introspect.KindJSON {
			if av, n, ok := fastJSONSized(x, 0); ok {
				return av, n, nil
			}
		}
	}
	av, err := Convert(c, v)
	if err != nil || av == nil {
		return av, 0, err
	}
	return av, avSize(av), nil
}

// ttlRule writes the table's TTL attribute from a date or timestamp column.
type ttlRule struct {
	name  string // the table's TTL attribute
	idx   int
	col   *introspect.Column
	after time.Duration
}

type attrRule struct {
	name  string
	idx   int
	col   *introspect.Column
	limit int     // > 0: the attribute is an index key of at most limit bytes, and not empty
	typ   ColType // attributes.types; "" for the column kind's default conversion
}

type setRule struct {
	name  string
	t     *bound
	typ   string // key type when the attribute is an index key or TTL, else ""
	limit int    // as in attrRule
	when  int    // the row's index of the condition's boolean; -1 for none
}

// RowError is a row that cannot become an item. The row is rejected, not
// written; the reason names the column or limit.
type RowError struct {
	Entity string
	Key    string // the row's source primary key, e.g. "user_id=42"
	Reason string
}

func (e *RowError) Error() string {
	return fmt.Sprintf("entity %s, row %s: %s", e.Entity, e.Key, e.Reason)
}

// SourceKey names a row by its primary key columns: "user_id=42, service=news".
// Text that is not valid UTF-8, or that starts with a double quote, is
// written Go-quoted with its bytes escaped (name="caf\xe9"), so that two
// keys that differ only in an invalid byte never read the same, and the key
// survives JSON, which would turn such bytes into U+FFFD. An error value
// (a value the source could not decode) shows the text it keeps when it has
// a SourceText() string method (package source's *InvalidUTF8Error), else ?.
func (e *Entity) SourceKey(row []any) string {
	var b strings.Builder
	for i, k := range e.keyCols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Columns[k].Name)
		b.WriteByte('=')
		switch v := row[k].(type) {
		case nil:
			b.WriteString("NULL")
		case []byte:
			fmt.Fprintf(&b, "%x", v)
		case error:
			var kt interface{ KeyText() string }
			if errors.As(v, &kt) {
				b.WriteString(kt.KeyText())
			} else {
				b.WriteString("?")
			}
		default:
			if s, err := scalarText(e.Columns[k], v); err == nil {
				b.WriteString(keyText(s))
			} else {
				fmt.Fprint(&b, v)
			}
		}
	}
	return b.String()
}

// keyText is s as SourceKey writes it: as it is, or Go-quoted when it is not
// valid UTF-8 or starts with a quote (so that no plain text reads like a
// quoted one).
func keyText(s string) string {
	if utf8.ValidString(s) && !strings.HasPrefix(s, `"`) {
		return s
	}
	return strconv.Quote(s)
}

func (e *Entity) reject(row []any, format string, args ...any) *RowError {
	return &RowError{Entity: e.Name, Key: e.SourceKey(row), Reason: fmt.Sprintf(format, args...)}
}

// Render turns one source row into its item, or returns a *RowError saying
// why the row cannot become one.
func (e *Entity) Render(row []any) (Item, error) {
	item, size, err := e.RenderSized(row)
	if checkSizes && err == nil && size != ItemSize(item) {
		return nil, fmt.Errorf("mapping: entity %s: RenderSized counted %d bytes, ItemSize %d", e.Name, size, ItemSize(item))
	}
	return item, err
}

// checkSizes makes Render compare the size RenderSized adds up with
// ItemSize's (set by the package's tests, which render through Render).
var checkSizes = false

// RenderSized is Render, with the item's size as DynamoDB counts it
// (ItemSize), which it adds up while making the item.
//
// The attribute values of items may be shared between items (the entity
// attribute, BOOL and NULL) and with one another's texts: an item's values
// are never changed once made, by this package or by any other.
func (e *Entity) RenderSized(row []any) (Item, int, error) {
	r := rendering{item: make(Item, len(e.attrs)+len(e.sets)+len(e.markers)+3), ra: &rowAlloc{nS: e.nS, nN: e.nN}}
	r.ra.text.Grow(e.textHint)
	if err := e.renderKeyTo(row, r.item, r.ra); err != nil {
		return nil, 0, err
	}
	r.item[e.table.EntityAttr] = e.nameAV
	// size and puts count what was put in item, to tell whether a name was
	// put twice (never, as compiled: then ItemSize counts instead).
	t := e.table
	r.size, r.puts = len(t.PK.Name)+avSize(r.item[t.PK.Name])+len(t.EntityAttr)+len(e.Name), 2
	if t.SK != nil {
		r.put(t.SK.Name, r.item[t.SK.Name], avSize(r.item[t.SK.Name]))
	}
	for _, m := range e.markers {
		r.item[m.name] = m.av
		r.size += m.size
		r.puts++
	}
	recount := len(r.item) != r.puts // a name put twice: ItemSize counts
	if err := e.renderAttrs(row, &r); err != nil {
		return nil, 0, err
	}
	if err := e.renderSets(row, &r); err != nil {
		return nil, 0, err
	}
	if err := e.renderTTL(row, &r); err != nil {
		return nil, 0, err
	}
	if len(e.embeds) > 0 {
		if err := e.renderEmbeds(row, r.item); err != nil {
			return nil, 0, err
		}
		recount = true
	}
	if recount || r.puts != len(r.item) {
		r.size = ItemSize(r.item)
	}
	if r.size > MaxItemSize {
		return nil, 0, e.reject(row, "item is %d bytes, over DynamoDB's %d-byte limit", r.size, MaxItemSize)
	}
	return r.item, r.size, nil
}

// rendering is an item RenderSized is making: its attributes so far, the
// size they add up to, how many it put, and where its texts and numbers
// are allocated.
type rendering struct {
	item Item
	size int
	puts int
	ra   *rowAlloc
}

// put puts av, n bytes as DynamoDB counts its value, as attribute name.
func (r *rendering) put(name string, av types.AttributeValue, n int) {
	r.item[name] = av
	r.size += len(name) + n
	r.puts++
}

// renderAttrs puts the columns' attributes: each value converted to its
// type (or the type the mapping asks for), NULL left out, an index key's
// value checked against DynamoDB's limits.
func (e *Entity) renderAttrs(row []any, r *rendering) error {
	hook := convertHook.Load()
	for _, a := range e.attrs {
		var av types.AttributeValue
		var n int
		var err error
		if a.typ != "" {
			av, err = ConvertAs(a.col, a.typ, row[a.idx])
			if av != nil {
				n = avSize(av)
			}
		} else {
			av, n, err = r.ra.convert(a.col, row[a.idx])
		}
		if err != nil {
			if a.typ != "" {
				return e.reject(row, "column %s (%s) as %s: %v", storedName(a.col), a.col.Type, a.typ, err)
			}
			return e.reject(row, "column %s (%s): %v", a.col.Name, a.col.Type, err)
		}
		if av == nil {
			continue
		}
		if hook != nil {
			av = (*hook)(e, ColumnAttribute{Attr: a.name, Column: a.col, Index: a.idx, Type: a.typ}, av)
			n = avSize(av)
		}
		if a.limit > 0 {
			if isEmptyKey(av) {
				return e.reject(row, "column %s is empty but attribute %s is an index key (an empty key value is not allowed)", storedName(a.col), a.name)
			}
			if n := keySize(av); n > a.limit {
				return e.reject(row, "attribute %s is %d bytes, over DynamoDB's %d-byte limit for an index key", a.name, n, a.limit)
			}
		}
		r.put(a.name, av, n)
	}
	return nil
}

// renderSets puts the attributes the mapping sets from templates: left
// out when their condition is not true or a column they name is NULL; a
// number checked as one, an index key against DynamoDB's limits.
func (e *Entity) renderSets(row []any, r *rendering) error {
	for _, s := range e.sets {
		if s.when >= 0 {
			switch v := row[s.when].(type) {
			case bool:
				if !v {
					continue // the condition is false: the attribute is left out
				}
			case nil:
				continue // NULL: not true
			case error:
				return e.reject(row, "the condition of attribute %s: %v", s.name, v)
			default:
				return e.reject(row, "the condition of attribute %s is a %T, not a boolean", s.name, v)
			}
		}
		v, err := s.t.renderTo(&r.ra.text, row)
		var null *nullError
		if errors.As(err, &null) {
			continue // like a NULL column, a set attribute over NULL is left out (sparse indexes)
		}
		if err != nil {
			return e.reject(row, "rendering attribute %s: %v", s.name, err)
		}
		if s.typ == "N" {
			n, err := normalizeNumber(v)
			if err != nil {
				return e.reject(row, "attribute %s must be a number: %v", s.name, err)
			}
			r.put(s.name, r.ra.n(n), numberSize(n))
			continue
		}
		if s.limit > 0 {
			if v == "" {
				return e.reject(row, "attribute %s renders empty but is an index key", s.name)
			}
			if len(v) > s.limit {
				return e.reject(row, "attribute %s is %d bytes, over DynamoDB's %d-byte limit for an index key", s.name, len(v), s.limit)
			}
		}
		r.put(s.name, r.ra.s(v), len(v))
	}
	return nil
}

// renderTTL puts the expiry time (epoch seconds) of a ttl column's value
// and its offset; NULL: the item does not expire.
func (e *Entity) renderTTL(row []any, r *rendering) error {
	t := e.ttl
	if t == nil {
		return nil
	}
	switch v := row[t.idx].(type) {
	case nil: // no expiry time: the item does not expire
	case error:
		return e.reject(row, "column %s (%s): %v", t.col.Name, t.col.Type, v)
	case time.Time:
		var buf [20]byte
		n := r.ra.keep(strconv.AppendInt(buf[:0], v.Add(t.after).Unix(), 10))
		r.put(t.name, r.ra.n(n), numberSize(n))
	default:
		return e.reject(row, "ttl column %s holds a %T, not a date or timestamp", t.col.Name, v)
	}
	return nil
}

// keySize is the size DynamoDB limits for a string or binary key value.
func keySize(av types.AttributeValue) int {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberB:
		return len(x.Value)
	}
	return 0
}

// renderKey renders the table key into item.
func (e *Entity) renderKey(row []any, item Item) error {
	ra := &rowAlloc{nS: 2, nN: 2}
	ra.text.Grow(e.pk.limit)
	return e.renderKeyTo(row, item, ra)
}

// renderKeyTo is renderKey with a row's allocations.
func (e *Entity) renderKeyTo(row []any, item Item, ra *rowAlloc) error {
	t := e.table
	pk, err := e.pk.renderTo(&ra.text, row)
	if err != nil {
		return e.reject(row, "rendering %s: %v", t.PK.Name, err)
	}
	if err := e.putKey(item, t.PK, pk, MaxPKSize, ra); err != nil {
		return e.reject(row, "%v", err)
	}
	if e.sk == nil {
		return nil
	}
	sk, err := e.sk.renderTo(&ra.text, row)
	if err != nil {
		return e.reject(row, "rendering %s: %v", t.SK.Name, err)
	}
	if err := e.putKey(item, *t.SK, sk, MaxSKSize, ra); err != nil {
		return e.reject(row, "%v", err)
	}
	return nil
}

func (e *Entity) putKey(item Item, k KeyAttr, v string, max int, ra *rowAlloc) error {
	switch {
	case v == "":
		return fmt.Errorf("key %s renders empty", k.Name)
	case len(v) > max:
		return fmt.Errorf("key %s is %d bytes, over DynamoDB's %d-byte limit", k.Name, len(v), max)
	case !utf8.ValidString(v):
		return fmt.Errorf("key %s is not valid UTF-8", k.Name)
	}
	if k.Type == "N" {
		n, err := normalizeNumber(v)
		if err != nil {
			return fmt.Errorf("key %s must be a number: %v", k.Name, err)
		}
		item[k.Name] = ra.n(n)
		return nil
	}
	item[k.Name] = ra.s(v)
	return nil
}

func isEmptyKey(av types.AttributeValue) bool {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return x.Value == ""
	case *types.AttributeValueMemberB:
		return len(x.Value) == 0
	}
	return false
}

// KeyOf returns the item's primary key attributes.
func (t *Table) KeyOf(item Item) Item {
	k := Item{t.PK.Name: item[t.PK.Name]}
	if t.SK != nil {
		k[t.SK.Name] = item[t.SK.Name]
	}
	return k
}

// KeyString names an item by its table key, e.g. "PK=USER#1 SK=USER#".
func (t *Table) KeyString(item Item) string {
	s := t.PK.Name + "=" + av.KeyText(item[t.PK.Name])
	if t.SK != nil {
		s += " " + t.SK.Name + "=" + av.KeyText(item[t.SK.Name])
	}
	return s
}

// KeyTemplates returns the entity's pk and sk templates as written.
func (e *Entity) KeyTemplates() (pk, sk string) {
	pk = e.pk.t.Src
	if e.sk != nil {
		sk = e.sk.t.Src
	}
	return pk, sk
}

// RenderKey renders only the item's table key (for comparing key sets).
func (e *Entity) RenderKey(row []any) (Item, error) {
	item := Item{}
	if err := e.renderKey(row, item); err != nil {
		return nil, err
	}
	return item, nil
}

// KeyColumns names the columns the table key's templates read (each once,
// in the templates' order): a row's item key changes only when one of them
// does.
func (e *Entity) KeyColumns() []string {
	var out []string
	for _, b := range []*bound{e.pk, e.sk} {
		if b == nil {
			continue
		}
		for _, c := range b.cols {
			if c != nil && !slices.Contains(out, c.Name) {
				out = append(out, c.Name)
			}
		}
	}
	return out
}

// KeyPart is a part of one of an entity's table-key templates as compiled:
// the part as written and, for a placeholder, the column it reads (one of
// the entity's Columns; nil for a literal).
type KeyPart struct {
	TemplatePart
	Column *introspect.Column
}

// KeyParts are the parts of the entity's pk template and of its sk
// template (nil when the table has no sort key), in order, a copy: the
// read-only view of the compiled key that the key proof (package
// keyproof) reads.
func (e *Entity) KeyParts() (pk, sk []KeyPart) {
	return keyParts(e.pk), keyParts(e.sk)
}

func keyParts(b *bound) []KeyPart {
	if b == nil {
		return nil
	}
	out := make([]KeyPart, len(b.t.parts))
	for i, p := range templateParts(b.t.parts) {
		out[i] = KeyPart{TemplatePart: p, Column: b.cols[i]}
	}
	return out
}

// RowKey is the key that names the entity's rows, its columns in key
// order: the mapping's key: when declared is true (which the source does
// not enforce: Stream rejects a repeated one), otherwise the relation's
// primary key, or every column when it has none.
func (e *Entity) RowKey() (cols []*introspect.Column, declared bool) {
	return e.keyColumns(), e.keyDeclared
}
