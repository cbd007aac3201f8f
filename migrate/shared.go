package migrate

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// maxShared is the most entities one shared read serves (a row's items
// are bits of a uint64 in its checkpoint mark).
const maxShared = 64

// sharedRead is several entities built from one source table, read by one
// statement instead of one each. The statement reads the table's columns
// (every entity of a table reads them all, first), then each entity's own
// extra columns (the conditions of its set attributes, the columns its
// typed attributes read in another form), renamed apart, and, for each
// entity with a where, that condition as a boolean (introspect.Column.Expr:
// ((where) IS TRUE), so NULL is false, as in WHERE). Its own WHERE is the
// entities' conditions joined by OR (none when one entity has none). Each
// row goes, laid out as the entity's own read would give it, to the
// entities whose condition it matches.
type sharedRead struct {
	ents  []*mapping.Entity
	table *introspect.Table
	where string
	base  int     // the table's columns, first in the shared row and in every entity's
	extra [][]int // per entity: the shared row's column of each of its columns after base
	flag  []int   // per entity: the shared row's column of its where; -1: it has none
}

// readSpec is one read of the source: an entity's own (sh nil), or a
// shared read of several (e is the first).
type readSpec struct {
	e  *mapping.Entity
	sh *sharedRead
}

func (rd readSpec) entities() []*mapping.Entity {
	if rd.sh != nil {
		return rd.sh.ents
	}
	return []*mapping.Entity{rd.e}
}

func (rd readSpec) table() (*introspect.Table, string) {
	if rd.sh != nil {
		return rd.sh.table, rd.sh.where
	}
	return rd.e.Table, rd.e.Where
}

// sharedTable is the source table entity e reads when its read can be
// shared with other entities of that table, else nil: e reads a table (not
// a view or a query) by its primary key, ascending, every column of it
// first (always, unless the mapping changed how), and has no embeds (an
// entity with embeds reads its child rows beside its own). Rows of a table
// are unique by its primary key, so the check that the key names one row
// (mapping.Entity.Stream) has nothing to find.
func sharedTable(p *mapping.Plan, e *mapping.Entity) *introspect.Table {
	t := e.Table
	if p.Schema == nil || t.Query != "" || t.View || t.KeyDesc != nil || len(t.PrimaryKey) == 0 || len(e.Embeds()) > 0 {
		return nil
	}
	for _, base := range p.Schema.Tables {
		if base.Schema != t.Schema || base.Name != t.Name {
			continue
		}
		if base.View || !slices.Equal(base.PrimaryKey, t.PrimaryKey) || len(e.Columns) < len(base.Columns) {
			return nil
		}
		for i, c := range base.Columns {
			if e.Columns[i] != c {
				return nil
			}
		}
		return base
	}
	return nil
}

// planReads lists the reads of a job: for a new job, the entities built
// from one table read by one shared read (in the order of the first of
// them), each other entity by its own; for a resumed job, the reads of
// its checkpoint. A shared read's statement is tried first, reading no
// row: if the database refuses it (an entity's where it cannot evaluate in
// the select list), its entities are read each by its own read.
func planReads(ctx context.Context, o Options, r source.Reader, tr *tracker) ([]readSpec, error) {
	var reads []readSpec
	if tr != nil && tr.resumed {
		seen := map[*sharedRead]bool{}
		for _, e := range o.Plan.Entities {
			if len(tr.byName[e.Name]) == 0 {
				continue // a shard's checkpoint: no range of e is this shard's
			}
			sh := tr.byName[e.Name][0].sh
			switch {
			case sh == nil:
				reads = append(reads, readSpec{e: e})
			case !seen[sh]:
				seen[sh] = true
				reads = append(reads, readSpec{e: sh.ents[0], sh: sh})
			}
		}
		return reads, nil
	}
	byTable := map[*introspect.Table][]*mapping.Entity{}
	var order []*introspect.Table
	for _, e := range o.Plan.Entities {
		base := sharedTable(o.Plan, e)
		if base == nil || len(byTable[base]) == maxShared {
			reads = append(reads, readSpec{e: e})
			continue
		}
		if byTable[base] == nil {
			order = append(order, base)
			reads = append(reads, readSpec{}) // its place, filled below
		}
		byTable[base] = append(byTable[base], e)
	}
	i := 0
	var out []readSpec
	for _, rd := range reads {
		if rd.e != nil {
			out = append(out, rd)
			continue
		}
		base := order[i]
		i++
		ents := byTable[base]
		if len(ents) == 1 {
			out = append(out, readSpec{e: ents[0]})
			continue
		}
		sh := newShared(base, ents)
		if err := r.Guard(ctx, func() error {
			return r.ScanTable(ctx, sh.table, "1=0", 1, func([]any) error { return nil })
		}); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			for _, e := range ents {
				out = append(out, readSpec{e: e})
			}
			continue
		}
		if tr != nil {
			if err := tr.share(sh); err != nil {
				return nil, err
			}
		}
		out = append(out, readSpec{e: ents[0], sh: sh})
	}
	return out, nil
}

// newShared is the shared read of ents, entities built from table base
// (sharedTable).
func newShared(base *introspect.Table, ents []*mapping.Entity) *sharedRead {
	sh := &sharedRead{ents: ents, base: len(base.Columns), extra: make([][]int, len(ents)), flag: make([]int, len(ents))}
	cols := slices.Clip(slices.Clone(base.Columns))
	taken := map[string]bool{}
	for _, c := range cols {
		taken[c.Name] = true
	}
	name := func(n string) string {
		for taken[n] {
			n += "_"
		}
		taken[n] = true
		return n
	}
	for i, e := range ents {
		for _, c := range e.Columns[sh.base:] {
			rc := *c
			rc.Name = name(c.Name)
			sh.extra[i] = append(sh.extra[i], len(cols))
			cols = append(cols, &rc)
		}
	}
	var conds []string
	all := true // every entity has a where
	for i, e := range ents {
		sh.flag[i] = -1
		if strings.TrimSpace(e.Where) == "" {
			all = false
			continue
		}
		sh.flag[i] = len(cols)
		cols = append(cols, &introspect.Column{Name: name("remodel_where_" + strconv.Itoa(i+1)), Type: "boolean", Kind: introspect.KindBool, Expr: e.Where})
		conds = append(conds, "("+e.Where+"\n)")
	}
	if all {
		sh.where = strings.Join(conds, " OR ")
	}
	t := *base
	t.Columns = cols
	sh.table = &t
	return sh
}

// sharedOf is the shared read of ents for a resumed job's checkpoint (one
// per set of entities, whatever its key ranges); nil for one entity.
func (tr *tracker) sharedOf(ents []*mapping.Entity) (*sharedRead, error) {
	if len(ents) == 1 {
		return nil, nil
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name
	}
	id := strings.Join(names, "\x00")
	if sh := tr.shared[id]; sh != nil {
		return sh, nil
	}
	base := sharedTable(tr.plan, ents[0])
	for _, e := range ents[1:] {
		if base == nil || sharedTable(tr.plan, e) != base {
			return nil, fmt.Errorf("entities %s are read together, but the mapping does not read them from one table", strings.Join(names, ", "))
		}
	}
	if base == nil || len(ents) > maxShared {
		return nil, fmt.Errorf("entities %s are read together, but the mapping does not read them from one table", strings.Join(names, ", "))
	}
	sh := newShared(base, ents)
	tr.shared[id] = sh
	return sh, nil
}

// matches is the set of entities (bit i: ents[i]) whose where the shared
// row matches.
func (sh *sharedRead) matches(row []any) (uint64, error) {
	var m uint64
	for i, f := range sh.flag {
		if f < 0 {
			m |= 1 << i
			continue
		}
		switch v := row[f].(type) {
		case bool:
			if v {
				m |= 1 << i
			}
		default:
			return 0, fmt.Errorf("migrate: reading %s: the where of entity %s gave %v, not a boolean", sh.table.Label(), sh.ents[i].Name, v)
		}
	}
	return m, nil
}

// entityRow lays the shared row out as entity i's own read gives it, in
// buf[i] (reused from row to row) or, for an entity without extra
// columns, in the shared row's first columns.
func (sh *sharedRead) entityRow(i int, row []any, buf [][]any) []any {
	if len(sh.extra[i]) == 0 {
		return row[:sh.base:sh.base]
	}
	b := append(buf[i][:0], row[:sh.base]...)
	for _, j := range sh.extra[i] {
		b = append(b, row[j])
	}
	buf[i] = b
	return b
}

// readShared reads the rows of a shared read (in key range kr), renders
// each into an item of every entity whose where it matches and sends them
// on; or, for seen (rows an earlier run settled), passes their keys on
// (readSettled).
func readShared(ctx context.Context, r source.Reader, sh *sharedRead, kr source.KeyRange, fn func(row []any, matched uint64) error) error {
	each := func(row []any) error {
		m, err := sh.matches(row)
		if err != nil || m == 0 {
			return err
		}
		return fn(row, m)
	}
	if kr.After != nil || kr.UpTo != nil {
		return r.ScanRange(ctx, sh.table, sh.where, kr, each)
	}
	return r.ScanTable(ctx, sh.table, sh.where, 0, each)
}
