package postgres

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/introspect"
)

// treeQuery returns every table and, for a partitioned one, the whole tree
// of its partitions (pg_partition_tree, which lists nothing for a table
// that is not partitioned), each with what is needed to tell its row count
// and size. Sizes of a partitioned table are 0: the rows live in its
// leaves.
const treeQuery = `
SELECT root.oid, c.oid, t.parent, c.relkind::text, n.nspname::text, c.relname::text,
       coalesce(pg_catalog.pg_get_expr(c.relpartbound, c.oid, true), ''),
       coalesce(pg_catalog.pg_get_partkeydef(c.oid), ''),
       c.relpages::int8, c.reltuples::float8,
       coalesce(pg_catalog.pg_relation_size(c.oid), 0)::int8,
       coalesce(pg_catalog.pg_table_size(c.oid), 0)::int8,
       coalesce(pg_catalog.pg_indexes_size(c.oid), 0)::int8,
       pg_catalog.has_table_privilege(c.oid, 'SELECT') AND NOT c.relrowsecurity,
       pg_catalog.current_setting('block_size')::int8
  FROM unnest($1::oid[]) AS root(oid)
 CROSS JOIN LATERAL (
       SELECT root.oid, 0::oid, 0
        UNION ALL
       SELECT pt.relid::oid, pt.parentrelid::oid, pt.level
         FROM pg_catalog.pg_partition_tree(root.oid) AS pt
        WHERE pt.level > 0
       ) AS t(relid, parent, level)
  JOIN pg_catalog.pg_class AS c ON c.oid = t.relid
  JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
 ORDER BY root.oid, t.level, c.relname, n.nspname`

// relStats is what the catalog says about one relation's rows.
type relStats struct {
	kind      string  // relkind: r table, p partitioned table, m materialized view, f foreign table, v view
	relpages  int64   // pages when last vacuumed or analysed
	reltuples float64 // rows then; -1 if never
	mainBytes int64   // the heap's size now (pg_relation_size)
	blockSize int64
	canCount  bool // SELECT privilege and no row-level security
}

// rowsFromStats decides a leaf relation's rows from its statistics:
//
//   - a table whose heap has no pages has no rows (exactly 0);
//   - statistics from a VACUUM or ANALYZE that saw rows are scaled to the
//     heap's size now, as the planner does (an estimate);
//   - otherwise (never analysed: reltuples -1; or analysed while empty or
//     with no pages: reltuples 0 or relpages 0, although the heap has pages
//     now) the statistics say nothing: count is set when the table may be
//     counted and its heap is at most limit bytes, and the rows are unknown
//     until then. A foreign table's rows are unknown.
func rowsFromStats(s relStats, limit int64) (size introspect.Size, count bool) {
	switch {
	case s.kind != "r" && s.kind != "m":
		return introspect.Size{}, false // a foreign table, or a view: no rows of its own
	case s.mainBytes == 0:
		return introspect.ExactRows(0), false
	case s.reltuples > 0 && s.relpages > 0 && s.blockSize > 0:
		pages := float64(s.mainBytes / s.blockSize)
		return introspect.EstimatedRows(int64(math.Round(s.reltuples / float64(s.relpages) * pages))), false
	}
	return introspect.Size{}, s.canCount && s.mainBytes <= limit
}

// relNode is one relation of a partition tree.
type relNode struct {
	schema, name, kind, bound, keyDef string
	size                              introspect.Size
	children                          []*relNode
	heapBytes                         int64 // pg_relation_size, for counting
}

// sizes sets every table's row count and sizes and, for a partitioned
// table, its Partitioning.
func (i *Inspector) sizes(ctx context.Context, byOID map[uint32]*introspect.Table, oids []uint32) error {
	rows, err := i.conn.Query(ctx, treeQuery, oids)
	if err != nil {
		return err
	}
	defer rows.Close()
	roots := map[uint32]*relNode{}
	nodes := map[uint32]*relNode{}
	var toCount []*relNode
	for rows.Next() {
		var (
			root, relid, parent uint32
			n                   relNode
			st                  relStats
			dataBytes, idxBytes int64
		)
		if err := rows.Scan(&root, &relid, &parent, &n.kind, &n.schema, &n.name, &n.bound, &n.keyDef,
			&st.relpages, &st.reltuples, &st.mainBytes, &dataBytes, &idxBytes, &st.canCount, &st.blockSize); err != nil {
			return err
		}
		node := &n
		st.kind = n.kind
		if n.kind != "p" {
			var count bool
			node.size, count = rowsFromStats(st, i.countLimit)
			node.size.DataBytes, node.size.IndexBytes = dataBytes, idxBytes
			if count {
				node.heapBytes = st.mainBytes
				toCount = append(toCount, node)
			}
		}
		nodes[relid] = node
		if relid == root {
			roots[root] = node
		} else if p := nodes[parent]; p != nil {
			p.children = append(p.children, node)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	for _, n := range countable(toCount, i.countLimit) {
		var c int64
		q := "SELECT count(*) FROM ONLY " + pgx.Identifier{n.schema, n.name}.Sanitize()
		if err := i.conn.QueryRow(ctx, q).Scan(&c); err != nil {
			return fmt.Errorf("counting the rows of %s.%s: %w", n.schema, n.name, err)
		}
		data, idx := n.size.DataBytes, n.size.IndexBytes
		n.size = introspect.ExactRows(c)
		n.size.DataBytes, n.size.IndexBytes = data, idx
	}
	for oid, t := range byOID {
		root := roots[oid]
		if root == nil {
			continue
		}
		sumPartitions(root)
		t.Size = root.size
		if root.kind == "p" {
			t.Partitioning = partitioning(root)
		}
	}
	return nil
}

// countable returns the relations to count: the smallest first, while
// their heaps take at most limit bytes in all, so that an Inspect reads at
// most limit bytes however many tables lack statistics.
func countable(nodes []*relNode, limit int64) []*relNode {
	sort.SliceStable(nodes, func(a, b int) bool {
		x, y := nodes[a], nodes[b]
		if x.heapBytes != y.heapBytes {
			return x.heapBytes < y.heapBytes
		}
		if x.schema != y.schema {
			return x.schema < y.schema
		}
		return x.name < y.name
	})
	var spent int64
	for i, n := range nodes {
		if spent+n.heapBytes > limit {
			return nodes[:i]
		}
		spent += n.heapBytes
	}
	return nodes
}

// sumPartitions sets the size of every partitioned relation under n (and n)
// to the sum of its partitions'; one without partitions holds no rows.
func sumPartitions(n *relNode) {
	if n.kind != "p" {
		return
	}
	n.size = introspect.ExactRows(0)
	for _, c := range n.children {
		sumPartitions(c)
		n.size.Add(c.size)
	}
}

// partitioning describes the partitions of the partitioned relation n.
func partitioning(n *relNode) *introspect.Partitioning {
	strategy, key := splitKeyDef(n.keyDef)
	p := &introspect.Partitioning{Strategy: strategy, Key: key, Partitions: []*introspect.Partition{}}
	children := append([]*relNode(nil), n.children...)
	sort.SliceStable(children, func(a, b int) bool {
		if children[a].name != children[b].name {
			return children[a].name < children[b].name
		}
		return children[a].schema < children[b].schema
	})
	for _, c := range children {
		part := &introspect.Partition{Schema: c.schema, Name: c.name, Bound: c.bound, Size: c.size}
		if c.kind == "p" {
			part.Partitioning = partitioning(c)
		}
		p.Partitions = append(p.Partitions, part)
	}
	return p
}

// splitKeyDef splits pg_get_partkeydef's "RANGE (payment_date)" into the
// strategy in lower case and the key.
func splitKeyDef(def string) (strategy, key string) {
	s, k, ok := strings.Cut(def, " ")
	if !ok {
		return strings.ToLower(def), ""
	}
	k = strings.TrimSpace(k)
	if strings.HasPrefix(k, "(") && strings.HasSuffix(k, ")") {
		k = k[1 : len(k)-1]
	}
	return strings.ToLower(s), k
}

// distinctQuery reads the planner's statistics of each column: how many
// distinct values (n_distinct: a count, or when negative the share of the
// rows that are distinct) and the share of NULLs. A partitioned table's
// are those of its whole tree (inherited); a table's own otherwise.
const distinctQuery = `
SELECT c.oid, s.attname::text, s.n_distinct::float8, s.null_frac::float8
  FROM pg_catalog.pg_stats AS s
  JOIN pg_catalog.pg_namespace AS n ON n.nspname = s.schemaname
  JOIN pg_catalog.pg_class AS c ON c.relnamespace = n.oid AND c.relname = s.tablename
 WHERE c.oid = ANY ($1::oid[]) AND s.inherited = (c.relkind = 'p')`

// distincts sets each column's Distinct from pg_stats (after sizes: a
// negative n_distinct is scaled by the table's rows).
func (i *Inspector) distincts(ctx context.Context, byOID map[uint32]*introspect.Table, oids []uint32) error {
	rows, err := i.conn.Query(ctx, distinctQuery, oids)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			oid             uint32
			name            string
			nDistinct, null float64
		)
		if err := rows.Scan(&oid, &name, &nDistinct, &null); err != nil {
			return err
		}
		t := byOID[oid]
		if t == nil {
			continue
		}
		c := t.Column(name)
		if c == nil {
			continue
		}
		n, _, known := t.Rows()
		if d, ok := distinctFromStats(nDistinct, null, n, known); ok {
			c.Distinct = &d
		}
	}
	return rows.Err()
}

// distinctFromStats is the number of distinct values pg_stats tells: a
// positive n_distinct is the count; a negative one the share of the rows
// (rows, when known); 0 is none when every value is NULL, else unknown.
func distinctFromStats(nDistinct, nullFrac float64, rows int64, rowsKnown bool) (int64, bool) {
	switch {
	case nDistinct > 0:
		return int64(math.Round(nDistinct)), true
	case nDistinct < 0 && rowsKnown:
		return max(1, int64(math.Round(-nDistinct*float64(rows)))), true
	case nDistinct == 0 && nullFrac >= 1:
		return 0, true
	}
	return 0, false
}
