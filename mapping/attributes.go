package mapping

import (
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// ColumnAttribute is an attribute that an entity's items take from one
// source column (after include, exclude and rename).
type ColumnAttribute struct {
	Attr   string             // the attribute's name in the item
	Column *introspect.Column // the source column
	Index  int                // the column's position in Entity.Columns (and in a row)
	// Type is the attribute's type from attributes.types, or "" for the
	// default conversion of the column's kind. A type that needs the column
	// read in another form has Column as a column the mapping adds
	// (introspect.Column.From names the stored one).
	Type ColType
}

// ColumnAttributes lists the attributes an entity's items take from source
// columns, in column order. Key, entity and set attributes are not among
// them: they come from templates.
func (e *Entity) ColumnAttributes() []ColumnAttribute {
	out := make([]ColumnAttribute, len(e.attrs))
	for i, a := range e.attrs {
		out[i] = ColumnAttribute{Attr: a.name, Column: a.col, Index: a.idx, Type: a.typ}
	}
	return out
}

// ConvertHook alters the attribute value Render converted from a column.
type ConvertHook func(e *Entity, a ColumnAttribute, av types.AttributeValue) types.AttributeValue

var convertHook atomic.Pointer[ConvertHook]

// SetConvertHook is for tests only: it makes Render pass every non-NULL
// column attribute it converts through h, and returns the function that
// removes h again. Tests of other packages use it to plant conversion bugs
// in the path migrate and verify share (a float rounded, a timestamp moved),
// which only verify's independent check can then find. Nothing outside
// tests calls it.
func SetConvertHook(h ConvertHook) (restore func()) {
	if h == nil {
		convertHook.Store(nil)
	} else {
		convertHook.Store(&h)
	}
	return func() { convertHook.Store(nil) }
}
