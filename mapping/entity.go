package mapping

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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
	pk, sk      *bound
	attrs       []attrRule
	sets        []setRule
	ttl         *ttlRule
	embeds      []*Embed // child rows, at len(Columns)+i of a row (embed.go)
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
	item, _, err := e.RenderSized(row)
	return item, err
}

// RenderSized is Render, with the item's size as DynamoDB counts it
// (ItemSize), which it computes anyway.
func (e *Entity) RenderSized(row []any) (Item, int, error) {
	item := make(Item, len(e.attrs)+len(e.sets)+3)
	if err := e.renderKey(row, item); err != nil {
		return nil, 0, err
	}
	item[e.table.EntityAttr] = &types.AttributeValueMemberS{Value: e.Name}
	hook := convertHook.Load()
	for _, a := range e.attrs {
		var av types.AttributeValue
		var err error
		if a.typ != "" {
			av, err = ConvertAs(a.col, a.typ, row[a.idx])
		} else {
			av, err = Convert(a.col, row[a.idx])
		}
		if err != nil {
			if a.typ != "" {
				return nil, 0, e.reject(row, "column %s (%s) as %s: %v", storedName(a.col), a.col.Type, a.typ, err)
			}
			return nil, 0, e.reject(row, "column %s (%s): %v", a.col.Name, a.col.Type, err)
		}
		if av == nil {
			continue
		}
		if hook != nil {
			av = (*hook)(e, ColumnAttribute{Attr: a.name, Column: a.col, Index: a.idx, Type: a.typ}, av)
		}
		if a.limit > 0 {
			if isEmptyKey(av) {
				return nil, 0, e.reject(row, "column %s is empty but attribute %s is an index key (an empty key value is not allowed)", storedName(a.col), a.name)
			}
			if n := keySize(av); n > a.limit {
				return nil, 0, e.reject(row, "attribute %s is %d bytes, over DynamoDB's %d-byte limit for an index key", a.name, n, a.limit)
			}
		}
		item[a.name] = av
	}
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
				return nil, 0, e.reject(row, "the condition of attribute %s: %v", s.name, v)
			default:
				return nil, 0, e.reject(row, "the condition of attribute %s is a %T, not a boolean", s.name, v)
			}
		}
		v, err := s.t.render(row)
		var null *nullError
		if errors.As(err, &null) {
			continue // like a NULL column, a set attribute over NULL is left out (sparse indexes)
		}
		if err != nil {
			return nil, 0, e.reject(row, "rendering attribute %s: %v", s.name, err)
		}
		if s.typ == "N" {
			n, err := normalizeNumber(v)
			if err != nil {
				return nil, 0, e.reject(row, "attribute %s must be a number: %v", s.name, err)
			}
			item[s.name] = &types.AttributeValueMemberN{Value: n}
			continue
		}
		if s.limit > 0 {
			if v == "" {
				return nil, 0, e.reject(row, "attribute %s renders empty but is an index key", s.name)
			}
			if len(v) > s.limit {
				return nil, 0, e.reject(row, "attribute %s is %d bytes, over DynamoDB's %d-byte limit for an index key", s.name, len(v), s.limit)
			}
		}
		item[s.name] = &types.AttributeValueMemberS{Value: v}
	}
	if r := e.ttl; r != nil {
		switch v := row[r.idx].(type) {
		case nil: // no expiry time: the item does not expire
		case error:
			return nil, 0, e.reject(row, "column %s (%s): %v", r.col.Name, r.col.Type, v)
		case time.Time:
			item[r.name] = &types.AttributeValueMemberN{Value: strconv.FormatInt(v.Add(r.after).Unix(), 10)}
		default:
			return nil, 0, e.reject(row, "ttl column %s holds a %T, not a date or timestamp", r.col.Name, v)
		}
	}
	if err := e.renderEmbeds(row, item); err != nil {
		return nil, 0, err
	}
	size := ItemSize(item)
	if size > MaxItemSize {
		return nil, 0, e.reject(row, "item is %d bytes, over DynamoDB's %d-byte limit", size, MaxItemSize)
	}
	return item, size, nil
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
	t := e.table
	pk, err := e.pk.render(row)
	if err != nil {
		return e.reject(row, "rendering %s: %v", t.PK.Name, err)
	}
	if err := e.putKey(item, t.PK, pk, MaxPKSize); err != nil {
		return e.reject(row, "%v", err)
	}
	if e.sk == nil {
		return nil
	}
	sk, err := e.sk.render(row)
	if err != nil {
		return e.reject(row, "rendering %s: %v", t.SK.Name, err)
	}
	if err := e.putKey(item, *t.SK, sk, MaxSKSize); err != nil {
		return e.reject(row, "%v", err)
	}
	return nil
}

func (e *Entity) putKey(item Item, k KeyAttr, v string, max int) error {
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
		item[k.Name] = &types.AttributeValueMemberN{Value: n}
		return nil
	}
	item[k.Name] = &types.AttributeValueMemberS{Value: v}
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
	s := t.PK.Name + "=" + AVText(item[t.PK.Name])
	if t.SK != nil {
		s += " " + t.SK.Name + "=" + AVText(item[t.SK.Name])
	}
	return s
}

// AVText is the text of a scalar key value (S, N or B in hex).
func AVText(av types.AttributeValue) string {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberN:
		return x.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("%x", x.Value)
	case nil:
		return "<missing>"
	}
	return fmt.Sprintf("%T", av)
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
