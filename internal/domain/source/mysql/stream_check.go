package mysql

import (
	"fmt"
	"strings"

	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// A rows event of a followed table is handed over only when it is exactly
// what the follower needs: whole rows (binlog_row_image=FULL, whatever a
// session or the server was set to after CheckFollow), whole values, of
// the columns remodel read. Anything else stops the stream with a
// *StopError, never a change applied in part.

// myRowsChange words the kinds of rows event in StopErrors.
var myRowsChange = map[replication.EnumRowsEventType]string{
	replication.EnumRowsEventTypeInsert: "an insert",
	replication.EnumRowsEventTypeUpdate: "an update",
	replication.EnumRowsEventTypeDelete: "a delete",
}

// checkRows refuses a rows event of f of a kind remodel does not know, of
// a table altered since remodel read it, or whose images are not whole.
func (f *myFollowed) checkRows(h *replication.EventHeader, e *replication.RowsEvent, kind replication.EnumRowsEventType) error {
	change, ok := myRowsChange[kind]
	if !ok {
		return fmt.Errorf("source: the binlog has a rows event of a kind remodel does not know (%s) for %s", h.EventType, f.t.QualifiedName())
	}
	if err := f.checkColumns(e); err != nil {
		return err
	}
	if kind == replication.EnumRowsEventTypeUpdate && len(e.Rows)%2 != 0 {
		return fmt.Errorf("source: an update of %s in the binlog has %d row images, not pairs of before and after", f.t.QualifiedName(), len(e.Rows))
	}
	if err := f.checkImages(e, kind, change); err != nil {
		return err
	}
	if h.EventType == replication.PARTIAL_UPDATE_ROWS_EVENT {
		return f.checkPartial(e, change)
	}
	return nil
}

// myAltered is what to do when a followed table's schema changed.
const myAltered = "keep the schema of the migrated tables unchanged from the copy to the switch, and migrate again"

// checkColumns refuses an event whose columns are not those remodel read
// of f: the table was altered.
func (f *myFollowed) checkColumns(e *replication.RowsEvent) error {
	if int(e.Table.ColumnCount) != len(f.stored) || int(e.ColumnCount) != len(f.stored) {
		return &source.StopError{
			Table: f.t.QualifiedName(),
			What:  fmt.Sprintf("the binlog has %d columns of it, which had %d when remodel read its schema: it was altered", e.Table.ColumnCount, len(f.stored)),
			Fix:   myAltered,
		}
	}
	if names := e.Table.ColumnNameString(); len(names) == len(f.stored) { // binlog_row_metadata=FULL
		for i, j := range f.stored {
			if !strings.EqualFold(names[i], f.t.Columns[j].Name) {
				return &source.StopError{
					Table: f.t.QualifiedName(),
					What:  fmt.Sprintf("its column %d is %s in the binlog, %s when remodel read its schema: it was altered", i+1, names[i], f.t.Columns[j].Name),
					Fix:   myAltered,
				}
			}
		}
	}
	return nil
}

// checkImages refuses an event whose row images lack columns: the
// before image of an update or delete and the after image of an insert or
// update must hold every column (binlog_row_image MINIMAL and NOBLOB, and
// MariaDB's FULL_NODUP, leave some out). Columns are checked in the
// event's bitmaps and in each image go-mysql decoded.
func (f *myFollowed) checkImages(e *replication.RowsEvent, kind replication.EnumRowsEventType, change string) error {
	bitmaps := [][]byte{e.ColumnBitmap1}
	if kind == replication.EnumRowsEventTypeUpdate {
		bitmaps = append(bitmaps, e.ColumnBitmap2)
	}
	lacks := map[int]bool{}
	for i := range f.stored {
		for _, b := range bitmaps {
			if i/8 >= len(b) || b[i/8]&(1<<(i%8)) == 0 {
				lacks[i] = true
			}
		}
	}
	for _, skipped := range e.SkippedColumns {
		for _, i := range skipped {
			lacks[i] = true
		}
	}
	for _, r := range e.Rows {
		if len(r) != len(f.stored) {
			return &source.StopError{Table: f.t.QualifiedName(), What: fmt.Sprintf("%s's row image has %d columns, which the table had %d of when remodel read its schema", change, len(r), len(f.stored)), Fix: myAltered}
		}
	}
	if len(lacks) == 0 {
		return nil
	}
	var names []string
	for i := range f.stored {
		if lacks[i] {
			names = append(names, f.t.Columns[f.stored[i]].Name)
		}
	}
	word := "column"
	if len(names) > 1 {
		word = "columns"
	}
	return &source.StopError{
		Table: f.t.QualifiedName(),
		What:  fmt.Sprintf("%s's row image lacks %s %s: binlog_row_image is not FULL", change, word, strings.Join(names, ", ")),
		Fix:   "set binlog_row_image=FULL (globally, for every session) for the whole migration, and migrate again",
	}
}

// checkPartial refuses a PARTIAL_UPDATE_ROWS_EVENT (MySQL 8's
// binlog_row_value_options=PARTIAL_JSON) one of whose values is a JSON
// value's change rather than the value.
func (f *myFollowed) checkPartial(e *replication.RowsEvent, change string) error {
	for _, r := range e.Rows {
		for i, v := range r {
			if _, ok := v.(*replication.JsonDiff); ok && i < len(f.stored) {
				return &source.StopError{
					Table: f.t.QualifiedName(),
					What:  fmt.Sprintf("%s's row image holds only the change of JSON column %s, not its value: binlog_row_value_options is PARTIAL_JSON", change, f.t.Columns[f.stored[i]].Name),
					Fix:   "set binlog_row_value_options='' (globally, for every session) for the whole migration, and migrate again",
				}
			}
		}
	}
	return nil
}
