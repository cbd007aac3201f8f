package migrate

import (
	"github.com/remodel-dev/remodel/mapping"
)

// account adds the write units of acknowledged items to the report's
// total, counted as DynamoDB charges a put of a new item
// (Table.PutWriteUnits: one unit per started KB for the table, and for
// every index the item is in, per started KB of the item as the index
// projects it); a delete, one unit. The run does not ask
// DynamoDB for its consumed capacity (ReturnConsumedCapacity): the answer
// is larger, DynamoDB Local answers more slowly, and the figure is known
// from the items. A put that replaces a larger item, or moves an item
// between index keys, costs more than counted here.
func (w *writer) account(done []pending) {
	n := 0
	for _, p := range done {
		if p.del {
			n++
			continue
		}
		u := p.units
		if u == 0 {
			u = mapping.WriteUnits(itemSize(&p))
		}
		n += w.table.PutWriteUnits(p.item, u)
	}
	w.c.mu.Lock()
	w.c.units += float64(n)
	w.c.mu.Unlock()
}
