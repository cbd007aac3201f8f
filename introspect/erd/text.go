package erd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/remodel-dev/remodel/introspect"
)

// Text writes the schema for people: per table its rows and size, comment,
// columns (declared type, kind, nullability, key markers, comment), enum
// and set values, keys, foreign keys, indexes, checks and partitions.
func Text(w io.Writer, s *introspect.Schema) error {
	bw := bufio.NewWriter(w)
	views := 0
	for _, t := range s.Tables {
		if t.View {
			views++
		}
	}
	fmt.Fprintf(bw, "database %s (%s), %d tables", s.Database, s.Engine, len(s.Tables)-views)
	if views > 0 {
		fmt.Fprintf(bw, ", %d views", views)
	}
	bw.WriteString("\n")
	for _, t := range s.Tables {
		writeTable(bw, t)
	}
	return bw.Flush()
}

func writeTable(w *bufio.Writer, t *introspect.Table) {
	if t.View {
		fmt.Fprintf(w, "\nview %s (no primary key: an entity from it names its key columns)\n", t.QualifiedName())
	} else {
		fmt.Fprintf(w, "\ntable %s (%s)\n", t.QualifiedName(), SizeText(t.Size))
	}
	if t.Comment != "" {
		fmt.Fprintf(w, "  comment: %s\n", oneLine(t.Comment))
	}
	markers := KeyMarkers(t)
	var cols bytes.Buffer
	tw := tabwriter.NewWriter(&cols, 0, 4, 2, ' ', 0)
	for _, c := range t.Columns {
		null := "null"
		if !c.Nullable {
			null = "not null"
		}
		kind := string(c.Kind)
		if c.Kind == introspect.KindArray {
			kind += " of " + string(c.Elem)
		}
		comment := ""
		if c.Comment != "" {
			comment = "-- " + oneLine(c.Comment)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Type, kind, null, strings.Join(markers[c.Name], ","), comment)
	}
	tw.Flush()
	// The padding of the empty cells at the ends of lines goes.
	for _, line := range strings.SplitAfter(cols.String(), "\n") {
		if line != "" {
			w.WriteString(strings.TrimRight(line, " \n") + "\n")
		}
	}
	for _, c := range t.Columns {
		if len(c.Values) > 0 {
			fmt.Fprintf(w, "  values of %s: %s\n", c.Name, quoteValues(c.Values))
		}
	}
	if len(t.PrimaryKey) > 0 {
		fmt.Fprintf(w, "  primary key (%s)\n", strings.Join(t.PrimaryKey, ", "))
	}
	for _, k := range t.UniqueKeys {
		fmt.Fprintf(w, "  unique key %s (%s)\n", k.Name, strings.Join(k.Columns, ", "))
	}
	for _, fk := range t.ForeignKeys {
		fmt.Fprintf(w, "  foreign key %s (%s) references %s.%s (%s)\n", fk.Name, strings.Join(fk.Columns, ", "), fk.RefSchema, fk.RefTable, strings.Join(fk.RefColumns, ", "))
	}
	for _, fk := range t.PartitionForeignKeys {
		fmt.Fprintf(w, "  foreign key %s (%s) references %s.%s (%s), on %d of %d partitions only (not on %s)\n", fk.Name, strings.Join(fk.Columns, ", "), fk.RefSchema, fk.RefTable, strings.Join(fk.RefColumns, ", "),
			len(fk.DeclaredOn), len(fk.DeclaredOn)+len(fk.MissingOn), introspect.PartitionNames(fk.MissingOn))
	}
	for _, ix := range t.Indexes {
		fmt.Fprintf(w, "  index %s\n", IndexText(ix))
	}
	for _, c := range t.Checks {
		fmt.Fprintf(w, "  check %s: %s\n", c.Name, oneLine(c.Expression))
	}
	if t.Partitioning != nil {
		writePartitions(w, t.Partitioning, "  ")
	}
}

func writePartitions(w *bufio.Writer, p *introspect.Partitioning, indent string) {
	n := len(p.Partitions)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	fmt.Fprintf(w, "%spartitioned by %s (%s), %d partition%s\n", indent, p.Strategy, p.Key, n, plural)
	for _, part := range p.Partitions {
		name := part.Name
		if part.Schema != "" {
			name = part.Schema + "." + part.Name
		}
		bound := ""
		if part.Bound != "" {
			bound = " " + part.Bound
		}
		fmt.Fprintf(w, "%s  partition %s%s (%s)\n", indent, name, bound, SizeText(part.Size))
		if part.Partitioning != nil {
			writePartitions(w, part.Partitioning, indent+"    ")
		}
	}
}

// KeyMarkers returns, per column, the keys it is part of: PK (the primary
// key), FK (a foreign key), UK (a unique key), in that order.
func KeyMarkers(t *introspect.Table) map[string][]string {
	out := map[string][]string{}
	add := func(col, m string) {
		for _, have := range out[col] {
			if have == m {
				return
			}
		}
		out[col] = append(out[col], m)
	}
	for _, c := range t.PrimaryKey {
		add(c, "PK")
	}
	for _, fk := range t.ForeignKeys {
		for _, c := range fk.Columns {
			add(c, "FK")
		}
	}
	for _, k := range t.UniqueKeys {
		for _, c := range k.Columns {
			add(c, "UK")
		}
	}
	return out
}

// IndexText spells an index: name (key parts) and what else it is:
//
//	film_pkey (film_id) unique primary
//	idx_title (title DESC, lower(name)) using gin include (a) where (active)
func IndexText(ix introspect.Index) string {
	parts := make([]string, 0, len(ix.Columns))
	for _, c := range ix.Columns {
		p := c.Column
		if p == "" {
			p = c.Expression
		}
		if c.Prefix > 0 {
			p += "(" + strconv.Itoa(c.Prefix) + ")"
		}
		if c.Desc {
			p += " DESC"
		}
		parts = append(parts, p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)", ix.Name, strings.Join(parts, ", "))
	if ix.Unique {
		b.WriteString(" unique")
	}
	if ix.Primary {
		b.WriteString(" primary")
	}
	if m := strings.ToLower(ix.Method); m != "" && m != "btree" {
		b.WriteString(" using " + ix.Method)
	}
	if len(ix.Include) > 0 {
		fmt.Fprintf(&b, " include (%s)", strings.Join(ix.Include, ", "))
	}
	if ix.Where != "" {
		b.WriteString(" where " + oneLine(ix.Where))
	}
	return b.String()
}

// SizeText spells a table's or partition's rows and bytes: "16044 rows,
// 1.2 MiB data, 720 KiB indexes", with "about" before an estimate and "rows
// unknown" when the count is.
func SizeText(s introspect.Size) string {
	return RowsText(s) + ", " + Bytes(s.DataBytes) + " data, " + Bytes(s.IndexBytes) + " indexes"
}

// RowsText spells a row count: "1 row", "16044 rows", "about 16044 rows",
// "rows unknown".
func RowsText(s introspect.Size) string {
	n, exact, known := s.Rows()
	switch {
	case !known:
		return "rows unknown"
	case !exact:
		return "about " + plural(n, "row")
	}
	return plural(n, "row")
}

func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.FormatInt(n, 10) + " " + unit + "s"
}

// Bytes spells a size in bytes with binary units: 0 B, 512 B, 8 KiB,
// 1.5 MiB, 12 GiB (one decimal below 10 of a unit, none above).
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	suffix := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[i]
	if v < 10 {
		s := strconv.FormatFloat(v, 'f', 1, 64)
		return strings.TrimSuffix(s, ".0") + " " + suffix
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " " + suffix
}

// quoteValues spells enum values as SQL string literals, in single quotes
// with a quote inside doubled.
func quoteValues(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "'" + strings.ReplaceAll(oneLine(v), "'", "''") + "'"
	}
	return strings.Join(q, ", ")
}

// oneLine keeps text on one line: line breaks and tabs become \n, \r, \t.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
}
