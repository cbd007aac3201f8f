package mapping

// KeyValues copies the values of the row's source key columns, so that the
// row can be named (SourceKeyOf) after the source has reused the row.
// Naming a row only when it is rejected spares building its key text for
// every row.
func (e *Entity) KeyValues(row []any) []any {
	vals := make([]any, len(e.keyCols))
	for i, k := range e.keyCols {
		vals[i] = row[k]
	}
	return vals
}

// SourceKeyOf is SourceKey of the row whose key values KeyValues returned.
func (e *Entity) SourceKeyOf(vals []any) string {
	row := make([]any, len(e.Columns))
	for i, k := range e.keyCols {
		row[k] = vals[i]
	}
	return e.SourceKey(row)
}
