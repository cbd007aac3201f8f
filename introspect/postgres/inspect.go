package postgres

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/introspect"
)

// Inspector reads the schema of the database a pgx connection is connected
// to. It implements introspect.Inspector.
type Inspector struct {
	conn       *pgx.Conn
	countLimit int64
}

var _ introspect.Inspector = (*Inspector)(nil)

// New returns an Inspector that reads over conn. The caller owns conn: the
// Inspector neither closes it nor changes its session state, and must not be
// used concurrently with other queries on the same connection.
func New(conn *pgx.Conn) *Inspector {
	return &Inspector{conn: conn, countLimit: introspect.DefaultCountLimit}
}

// CountLimit sets how many bytes of table data Inspect may read, in all, to
// count the rows of tables whose statistics say nothing
// (introspect.DefaultCountLimit unless set; 0 counts none). It returns i.
func (i *Inspector) CountLimit(bytes int64) *Inspector {
	i.countLimit = bytes
	return i
}

// excludedSchemas are left out besides every schema named "pg_...".
var excludedSchemas = []string{"information_schema"}

// systemSchemaPattern is a LIKE pattern for the schemas PostgreSQL reserves
// for itself: pg_catalog, pg_toast, pg_temp_N, pg_toast_temp_N.
const systemSchemaPattern = `pg\_%`

// tablesQuery returns each table and view with its comment, whether it is
// a view (or materialized view) and, for a partitioned table, the number of
// its leaf partitions (0 otherwise), and whether it is a materialized view
// not populated (created WITH NO DATA and not refreshed since).
const tablesQuery = `
SELECT c.oid, n.nspname::text, c.relname::text,
       coalesce(pg_catalog.obj_description(c.oid, 'pg_class'), ''),
       coalesce(leaf.n, 0), c.relkind IN ('v', 'm'),
       c.relkind = 'm' AND NOT c.relispopulated
  FROM pg_catalog.pg_class AS c
  JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
  LEFT JOIN LATERAL (
       SELECT count(*)::int4 AS n
         FROM pg_catalog.pg_partition_tree(c.oid) AS pt
        WHERE c.relkind = 'p' AND pt.isleaf
       HAVING count(*) > 0
       ) AS leaf ON true
 WHERE c.relkind IN ('r', 'p', 'v', 'm')
   AND NOT c.relispartition
   AND n.nspname <> ALL ($1::text[])
   AND n.nspname NOT LIKE $2
   AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend AS d
                    WHERE d.classid = 'pg_catalog.pg_class'::regclass
                      AND d.objid = c.oid AND d.deptype = 'e')
 ORDER BY n.nspname, c.relname`

const columnsQuery = `
SELECT a.attrelid, a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod),
       a.attnotnull, a.atttypid, a.atttypmod,
       coalesce(pg_catalog.col_description(a.attrelid, a.attnum), '')
  FROM pg_catalog.pg_attribute AS a
 WHERE a.attrelid = ANY ($1::oid[])
   AND a.attnum > 0
   AND NOT a.attisdropped
 ORDER BY a.attrelid, a.attnum`

// typesQuery returns the pg_type rows of the given types and, transitively,
// of their domain base types and element types.
const typesQuery = `
WITH RECURSIVE ty(oid) AS (
    SELECT unnest($1::oid[])
  UNION
    SELECT v.oid
      FROM ty
      JOIN pg_catalog.pg_type AS t ON t.oid = ty.oid
     CROSS JOIN LATERAL (VALUES (t.typbasetype), (t.typelem)) AS v(oid)
     WHERE v.oid <> 0
)
SELECT t.oid, t.typname::text, n.nspname::text, t.typtype::text, t.typcategory::text,
       t.typbasetype, t.typelem, t.typtypmod, t.typnotnull, t.typdelim::text
  FROM ty
  JOIN pg_catalog.pg_type AS t ON t.oid = ty.oid
  JOIN pg_catalog.pg_namespace AS n ON n.oid = t.typnamespace`

const primaryKeysQuery = `
SELECT con.conrelid, a.attname::text
  FROM pg_catalog.pg_constraint AS con
 CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
  JOIN pg_catalog.pg_attribute AS a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
 WHERE con.contype = 'p'
   AND con.conrelid = ANY ($1::oid[])
 ORDER BY con.conrelid, k.ord`

// foreignKeysQuery skips the constraints PostgreSQL derives from another one
// (conparentid <> 0): a foreign key that references a partitioned table gets
// one hidden copy per partition of the referenced table.
const foreignKeysQuery = `
SELECT con.conrelid, con.oid, con.conname::text, rn.nspname::text, rc.relname::text,
       a.attname::text, ra.attname::text
  FROM pg_catalog.pg_constraint AS con
  JOIN pg_catalog.pg_class AS rc ON rc.oid = con.confrelid
  JOIN pg_catalog.pg_namespace AS rn ON rn.oid = rc.relnamespace
 CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(attnum, refattnum, ord)
  JOIN pg_catalog.pg_attribute AS a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
  JOIN pg_catalog.pg_attribute AS ra ON ra.attrelid = con.confrelid AND ra.attnum = k.refattnum
 WHERE con.contype = 'f'
   AND con.conparentid = 0
   AND con.conrelid = ANY ($1::oid[])
 ORDER BY con.conrelid, con.conname, con.oid, k.ord`

// partitionForeignKeysQuery returns the foreign keys of the leaf
// partitions of the given partitioned tables: their own and those cloned
// from an ancestor, but not the hidden per-partition copies of a foreign key
// that references a partitioned table (a copy whose parent constraint is on
// the same table).
const partitionForeignKeysQuery = `
SELECT root.oid, pt.relid::oid, con.oid, con.conname::text, rn.nspname::text, rc.relname::text,
       a.attname::text, ra.attname::text
  FROM pg_catalog.pg_class AS root
 CROSS JOIN LATERAL pg_catalog.pg_partition_tree(root.oid) AS pt
  JOIN pg_catalog.pg_constraint AS con ON con.conrelid = pt.relid
  JOIN pg_catalog.pg_class AS rc ON rc.oid = con.confrelid
  JOIN pg_catalog.pg_namespace AS rn ON rn.oid = rc.relnamespace
 CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(attnum, refattnum, ord)
  JOIN pg_catalog.pg_attribute AS a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
  JOIN pg_catalog.pg_attribute AS ra ON ra.attrelid = con.confrelid AND ra.attnum = k.refattnum
 WHERE root.oid = ANY ($1::oid[])
   AND root.relkind = 'p'
   AND pt.isleaf
   AND con.contype = 'f'
   AND NOT EXISTS (SELECT FROM pg_catalog.pg_constraint AS pc
                    WHERE pc.oid = con.conparentid AND pc.conrelid = con.conrelid)
 ORDER BY root.oid, pt.relid, con.conname, con.oid, k.ord`

// column is a pg_attribute row before its type is resolved.
type column struct {
	col     *introspect.Column
	table   *introspect.Table
	typid   uint32
	typmod  int32
	notNull bool
}

// Inspect reads every table and view of the database (see the package
// comment for which relations count) with its columns, keys and row
// estimate.
func (i *Inspector) Inspect(ctx context.Context) (*introspect.Schema, error) {
	s := &introspect.Schema{Engine: introspect.Postgres, Tables: []*introspect.Table{}}
	if err := i.conn.QueryRow(ctx, "SELECT pg_catalog.current_database()::text").Scan(&s.Database); err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading the current database: %w", err)
	}

	byOID, oids, leaves, err := i.tables(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading tables: %w", err)
	}
	if len(oids) == 0 {
		return s, nil
	}
	cols, err := i.columns(ctx, byOID, oids)
	if err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading columns: %w", err)
	}
	if err := i.resolveTypes(ctx, cols); err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading column types: %w", err)
	}
	if err := i.primaryKeys(ctx, byOID, oids); err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading primary keys: %w", err)
	}
	if err := i.foreignKeys(ctx, byOID, oids); err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading foreign keys: %w", err)
	}
	if err := i.partitionForeignKeys(ctx, byOID, leaves); err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading foreign keys of partitions: %w", err)
	}
	if err := i.indexes(ctx, byOID, oids); err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading indexes: %w", err)
	}
	if err := i.checks(ctx, byOID, oids); err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading check constraints: %w", err)
	}
	if err := i.sizes(ctx, byOID, oids); err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading row counts and sizes: %w", err)
	}
	if err := i.distincts(ctx, byOID, oids); err != nil {
		return nil, fmt.Errorf("introspect/postgres: reading column statistics: %w", err)
	}
	return s, nil
}

// tables lists the tables into s and returns them by oid, their oids in
// order, and the number of leaf partitions of each partitioned table.
func (i *Inspector) tables(ctx context.Context, s *introspect.Schema) (map[uint32]*introspect.Table, []uint32, map[uint32]int, error) {
	rows, err := i.conn.Query(ctx, tablesQuery, excludedSchemas, systemSchemaPattern)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rows.Close()
	byOID := map[uint32]*introspect.Table{}
	leaves := map[uint32]int{}
	var oids []uint32
	for rows.Next() {
		var (
			oid uint32
			n   int32
		)
		t := &introspect.Table{Columns: []*introspect.Column{}}
		if err := rows.Scan(&oid, &t.Schema, &t.Name, &t.Comment, &n, &t.View, &t.Unpopulated); err != nil {
			return nil, nil, nil, err
		}
		s.Tables = append(s.Tables, t)
		byOID[oid] = t
		oids = append(oids, oid)
		if n > 0 {
			leaves[oid] = int(n)
		}
	}
	return byOID, oids, leaves, rows.Err()
}

func (i *Inspector) columns(ctx context.Context, byOID map[uint32]*introspect.Table, oids []uint32) ([]column, error) {
	rows, err := i.conn.Query(ctx, columnsQuery, oids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var (
			relid uint32
			c     column
		)
		c.col = &introspect.Column{}
		if err := rows.Scan(&relid, &c.col.Name, &c.col.Type, &c.notNull, &c.typid, &c.typmod, &c.col.Comment); err != nil {
			return nil, err
		}
		t, ok := byOID[relid]
		if !ok {
			return nil, fmt.Errorf("column %s of unexpected relation %d", c.col.Name, relid)
		}
		c.table = t
		t.Columns = append(t.Columns, c.col)
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// resolveTypes sets Kind, Elem, Precision, Delim and Nullable of every column.
func (i *Inspector) resolveTypes(ctx context.Context, cols []column) error {
	seen := map[uint32]bool{}
	var typids []uint32
	for _, c := range cols {
		if !seen[c.typid] {
			seen[c.typid] = true
			typids = append(typids, c.typid)
		}
	}
	rows, err := i.conn.Query(ctx, typesQuery, typids)
	if err != nil {
		return err
	}
	defer rows.Close()
	ts := typeSet{}
	for rows.Next() {
		var t pgType
		if err := rows.Scan(&t.oid, &t.name, &t.nspname, &t.typtype, &t.category, &t.basetype, &t.elem, &t.typmod, &t.notNull, &t.delim); err != nil {
			return err
		}
		ts[t.oid] = t
	}
	if err := rows.Err(); err != nil {
		return err
	}
	enumCols := map[uint32][]*introspect.Column{}
	var enums []uint32
	for _, c := range cols {
		r, err := ts.resolve(c.typid, c.typmod)
		if err != nil {
			return fmt.Errorf("column %s of %s: %w", c.col.Name, c.table.Label(), err)
		}
		c.col.Kind, c.col.Elem, c.col.Precision, c.col.Delim = r.kind, r.elem, r.precision, r.delim
		c.col.Nullable = !c.notNull && !r.notNull
		if r.enum != 0 {
			if enumCols[r.enum] == nil {
				enums = append(enums, r.enum)
			}
			enumCols[r.enum] = append(enumCols[r.enum], c.col)
		}
	}
	if len(enums) == 0 {
		return nil
	}
	return i.enumValues(ctx, enums, enumCols)
}

const enumValuesQuery = `
SELECT e.enumtypid, e.enumlabel::text
  FROM pg_catalog.pg_enum AS e
 WHERE e.enumtypid = ANY ($1::oid[])
 ORDER BY e.enumtypid, e.enumsortorder`

// enumValues gives every column of an enum type (cols, by the enum's oid)
// the enum's labels in their sort order.
func (i *Inspector) enumValues(ctx context.Context, enums []uint32, cols map[uint32][]*introspect.Column) error {
	rows, err := i.conn.Query(ctx, enumValuesQuery, enums)
	if err != nil {
		return err
	}
	defer rows.Close()
	labels := map[uint32][]string{}
	for rows.Next() {
		var (
			oid   uint32
			label string
		)
		if err := rows.Scan(&oid, &label); err != nil {
			return err
		}
		labels[oid] = append(labels[oid], label)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for oid, cs := range cols {
		for _, c := range cs {
			// An enum without labels is possible; Values stays nil.
			if l := labels[oid]; len(l) > 0 {
				c.Values = append([]string(nil), l...)
			}
		}
	}
	return nil
}

func (i *Inspector) primaryKeys(ctx context.Context, byOID map[uint32]*introspect.Table, oids []uint32) error {
	rows, err := i.conn.Query(ctx, primaryKeysQuery, oids)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			relid uint32
			name  string
		)
		if err := rows.Scan(&relid, &name); err != nil {
			return err
		}
		if t := byOID[relid]; t != nil {
			t.PrimaryKey = append(t.PrimaryKey, name)
		}
	}
	return rows.Err()
}

func (i *Inspector) foreignKeys(ctx context.Context, byOID map[uint32]*introspect.Table, oids []uint32) error {
	rows, err := i.conn.Query(ctx, foreignKeysQuery, oids)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		lastTable *introspect.Table
		lastCon   uint32
	)
	for rows.Next() {
		var (
			relid, conoid                          uint32
			name, refSchema, refTable, col, refCol string
		)
		if err := rows.Scan(&relid, &conoid, &name, &refSchema, &refTable, &col, &refCol); err != nil {
			return err
		}
		t := byOID[relid]
		if t == nil {
			continue
		}
		if t != lastTable || conoid != lastCon {
			t.ForeignKeys = append(t.ForeignKeys, introspect.ForeignKey{Name: name, RefSchema: refSchema, RefTable: refTable})
			lastTable, lastCon = t, conoid
		}
		fk := &t.ForeignKeys[len(t.ForeignKeys)-1]
		fk.Columns = append(fk.Columns, col)
		fk.RefColumns = append(fk.RefColumns, refCol)
	}
	return rows.Err()
}

// partitionForeignKeys gives a partitioned table the foreign keys that every
// one of its leaf partitions has but the table itself does not declare: the
// parent stands for its partitions, their relationships included. Such a key
// is named after the partitions' constraint that sorts first. A key that
// only some leaves declare (Pagila's payment: 6 of its 7) does not hold
// for the table: it goes to PartitionForeignKeys, with the leaves that
// declare it and those that do not.
func (i *Inspector) partitionForeignKeys(ctx context.Context, byOID map[uint32]*introspect.Table, leaves map[uint32]int) error {
	if len(leaves) == 0 {
		return nil
	}
	parents := make([]uint32, 0, len(leaves))
	for oid := range leaves {
		parents = append(parents, oid)
	}
	found, err := i.leafForeignKeys(ctx, parents)
	if err != nil {
		return err
	}
	partial := map[uint32][]*sharedFK{}
	for root, byShape := range found {
		t := byOID[root]
		if t == nil {
			continue
		}
		if p := liftForeignKeys(t, byShape, leaves[root]); len(p) > 0 {
			partial[root] = p
		}
	}
	if len(partial) == 0 {
		return nil
	}
	// The keys some partitions lack: name every leaf that declares them
	// and every one that does not.
	roots := make([]uint32, 0, len(partial))
	for root := range partial {
		roots = append(roots, root)
	}
	names, err := i.leafNames(ctx, roots)
	if err != nil {
		return err
	}
	for root, shs := range partial {
		addPartitionForeignKeys(byOID[root], shs, names[root])
	}
	return nil
}

// sharedFK is one foreign key shape of a partitioned table's leaves: the
// leaves that declare it, and the first of their constraint names.
type sharedFK struct {
	fk     introspect.ForeignKey
	leaves map[uint32]bool
}

// leafFKs collects the foreign keys of leaf partitions from the rows of
// partitionForeignKeysQuery: one row per column of a constraint, a
// constraint's rows together.
type leafFKs struct {
	found                 map[uint32]map[string]*sharedFK // root -> shape -> leaves
	cur                   *introspect.ForeignKey
	curRoot, curLeaf, con uint32
}

// add reads one row: a column of the current constraint, or the first of
// the next.
func (l *leafFKs) add(root, leaf, conoid uint32, name, refSchema, refTable, col, refCol string) {
	if l.cur == nil || root != l.curRoot || leaf != l.curLeaf || conoid != l.con {
		l.flush()
		l.cur = &introspect.ForeignKey{Name: name, RefSchema: refSchema, RefTable: refTable}
		l.curRoot, l.curLeaf, l.con = root, leaf, conoid
	}
	l.cur.Columns = append(l.cur.Columns, col)
	l.cur.RefColumns = append(l.cur.RefColumns, refCol)
}

// flush counts the current constraint for its leaf under its root and
// shape.
func (l *leafFKs) flush() {
	if l.cur == nil {
		return
	}
	byShape := l.found[l.curRoot]
	if byShape == nil {
		byShape = map[string]*sharedFK{}
		l.found[l.curRoot] = byShape
	}
	shape := fkShape(*l.cur)
	sh := byShape[shape]
	if sh == nil {
		sh = &sharedFK{fk: *l.cur, leaves: map[uint32]bool{}}
		byShape[shape] = sh
	} else if l.cur.Name < sh.fk.Name {
		sh.fk.Name = l.cur.Name
	}
	sh.leaves[l.curLeaf] = true
	l.cur = nil
}

// leafForeignKeys reads the foreign keys of the leaf partitions of the
// partitioned tables parents: per parent and per shape, the leaves that
// declare it.
func (i *Inspector) leafForeignKeys(ctx context.Context, parents []uint32) (map[uint32]map[string]*sharedFK, error) {
	rows, err := i.conn.Query(ctx, partitionForeignKeysQuery, parents)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	l := &leafFKs{found: map[uint32]map[string]*sharedFK{}}
	for rows.Next() {
		var (
			root, leaf, conoid                     uint32
			name, refSchema, refTable, col, refCol string
		)
		if err := rows.Scan(&root, &leaf, &conoid, &name, &refSchema, &refTable, &col, &refCol); err != nil {
			return nil, err
		}
		l.add(root, leaf, conoid, name, refSchema, refTable, col, refCol)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	l.flush()
	return l.found, nil
}

// liftForeignKeys gives the partitioned table t the keys of byShape that
// all its nleaves leaves declare and it does not, and returns those only
// some leaves declare.
func liftForeignKeys(t *introspect.Table, byShape map[string]*sharedFK, nleaves int) []*sharedFK {
	declared := map[string]bool{}
	for _, fk := range t.ForeignKeys {
		declared[fkShape(fk)] = true
	}
	var partial []*sharedFK
	added := false
	for shape, sh := range byShape {
		switch {
		case declared[shape]:
		case len(sh.leaves) == nleaves:
			t.ForeignKeys = append(t.ForeignKeys, sh.fk)
			added = true
		default:
			partial = append(partial, sh)
		}
	}
	if added {
		sort.Slice(t.ForeignKeys, func(a, b int) bool {
			x, y := t.ForeignKeys[a], t.ForeignKeys[b]
			if x.Name != y.Name {
				return x.Name < y.Name
			}
			return fkShape(x) < fkShape(y)
		})
	}
	return partial
}

// leafNames reads the names of the leaf partitions of the partitioned
// tables roots: root -> leaf -> name.
func (i *Inspector) leafNames(ctx context.Context, roots []uint32) (map[uint32]map[uint32]introspect.PartitionName, error) {
	names := map[uint32]map[uint32]introspect.PartitionName{}
	rows, err := i.conn.Query(ctx, leafNamesQuery, roots)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			root, leaf   uint32
			schema, name string
		)
		if err := rows.Scan(&root, &leaf, &schema, &name); err != nil {
			return nil, err
		}
		if names[root] == nil {
			names[root] = map[uint32]introspect.PartitionName{}
		}
		names[root][leaf] = introspect.PartitionName{Schema: schema, Name: name}
	}
	return names, rows.Err()
}

// addPartitionForeignKeys gives t the keys shs that only some of its
// leaves (names: leaf -> name) declare, each with the leaves that declare
// it and those that do not.
func addPartitionForeignKeys(t *introspect.Table, shs []*sharedFK, names map[uint32]introspect.PartitionName) {
	byName := func(a, b introspect.PartitionName) int { return strings.Compare(a.String(), b.String()) }
	for _, sh := range shs {
		pfk := introspect.PartitionForeignKey{ForeignKey: sh.fk}
		for leaf, name := range names {
			if sh.leaves[leaf] {
				pfk.DeclaredOn = append(pfk.DeclaredOn, name)
			} else {
				pfk.MissingOn = append(pfk.MissingOn, name)
			}
		}
		slices.SortFunc(pfk.DeclaredOn, byName)
		slices.SortFunc(pfk.MissingOn, byName)
		t.PartitionForeignKeys = append(t.PartitionForeignKeys, pfk)
	}
	sort.Slice(t.PartitionForeignKeys, func(a, b int) bool {
		x, y := t.PartitionForeignKeys[a], t.PartitionForeignKeys[b]
		if x.Name != y.Name {
			return x.Name < y.Name
		}
		return fkShape(x.ForeignKey) < fkShape(y.ForeignKey)
	})
}

// leafNamesQuery returns the leaf partitions of the given partitioned
// tables, each with its schema and name.
const leafNamesQuery = `
SELECT root.oid, pt.relid::oid, n.nspname::text, c.relname::text
  FROM pg_catalog.pg_class AS root
 CROSS JOIN LATERAL pg_catalog.pg_partition_tree(root.oid) AS pt
  JOIN pg_catalog.pg_class AS c ON c.oid = pt.relid
  JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
 WHERE root.oid = ANY ($1::oid[])
   AND pt.isleaf`

// fkShape identifies what a foreign key relates, leaving out its name.
func fkShape(fk introspect.ForeignKey) string {
	return strings.Join([]string{
		strings.Join(fk.Columns, "\x00"), fk.RefSchema, fk.RefTable, strings.Join(fk.RefColumns, "\x00"),
	}, "\x01")
}
