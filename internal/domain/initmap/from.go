package initmap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// This file holds init --from: a starting mapping read from another tool's
// design (the DynamoDB MCP server's schema.json, from_mcp.go; the
// migrationContract.json of AWS's database-modernization workshop,
// from_contract.go). Both are read into one model (imported) that the
// writer below turns into a mapping file; what a file says that remodel
// has no equivalent for is a note, written in the file as a comment and
// returned for stderr.

// FromOptions are what init --from is told besides the file and the ERD.
type FromOptions struct {
	// Table names the table of the file to map (a file may hold several),
	// which is also the DynamoDB table's name; empty: the file's only
	// table.
	Table string
}

// Imported is a starting mapping read from another tool's design.
type Imported struct {
	// Format is the file's format: "dynamodb-mcp" or "migration-contract".
	Format  string
	Mapping []byte
	// Notes name every construct of the file that has no remodel
	// equivalent, one a line, as the mapping's comments do.
	Notes []string
}

// Format names.
const (
	FormatMCP      = "dynamodb-mcp"
	FormatContract = "migration-contract"
)

// From reads a design file (name, for messages, and its bytes) and writes
// a starting mapping for the source whose ERD is s. The format is told by
// the file's shape: tables with table_config (schema.json) or tables with
// table and source_table or entities (migrationContract.json).
func From(name string, data []byte, s *introspect.Schema, o FromOptions) (*Imported, error) {
	var top struct {
		Tables []map[string]json.RawMessage `json:"tables"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("init --from %s: not a JSON design file: %w", name, err)
	}
	if len(top.Tables) == 0 {
		return nil, fmt.Errorf("init --from %s: the file has no tables", name)
	}
	var (
		im     *imported
		format string
		err    error
	)
	switch t := top.Tables[0]; {
	case t["table_config"] != nil:
		format = FormatMCP
		im, err = fromMCP(data, s, o)
	case t["source_table"] != nil || t["entities"] != nil || t["table"] != nil:
		format = FormatContract
		im, err = fromContract(data, s, o)
	default:
		return nil, fmt.Errorf("init --from %s: neither a DynamoDB MCP server schema.json (tables[].table_config) nor a migrationContract.json (tables[].table, source_table, entities)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("init --from %s: %w", name, err)
	}
	im.file, im.format = name, format
	return &Imported{Format: format, Mapping: im.write(), Notes: im.allNotes()}, nil
}

// imported is a design read from a file, as a mapping says it.
type imported struct {
	file, format string
	Table        string
	PK, SK       *impKey
	EntityAttr   string
	TTL          string
	// Markers are the marker sets (table.markers) and the ElectroDB
	// version they write ("" for the default).
	Markers          []string
	ElectroDBVersion string
	Indexes          []*impIndex
	Entities         []*impEntity
	Patterns         []*impPattern
	Notes            []string // on the table and the file
}

type impKey struct{ Name, Type string }

type impIndex struct {
	Name       string
	PK, SK     *impKey
	Projection string // ALL, KEYS_ONLY, INCLUDE
	Include    []string
}

type impEntity struct {
	Name               string
	From, Query, Where string
	Key                []string
	PK, SK             string
	Include            []string // columns that become attributes, in order
	Rename, Types, Set [][2]string
	TTLFrom, TTLAfter  string
	Notes              []string
	leftOut            string // why the entity is not written ("" when it is)
	columns            map[string]string
	keyOnlyCols        []string
}

func (e *impEntity) note(format string, args ...any) {
	e.Notes = append(e.Notes, fmt.Sprintf(format, args...))
}

// addSet adds a set attribute once; another template for it is a note.
func (e *impEntity) addSet(attr, tpl string) {
	for _, kv := range e.Set {
		if kv[0] == attr {
			if kv[1] != tpl {
				e.note("attribute %s is given two templates, %s and %s: the first is kept", attr, kv[1], tpl)
			}
			return
		}
	}
	e.Set = append(e.Set, [2]string{attr, tpl})
}

type impPattern struct {
	Name, Index, Entity string
	PK, SK              string
	SQL                 string
}

func (im *imported) note(format string, args ...any) {
	im.Notes = append(im.Notes, fmt.Sprintf(format, args...))
}

// allNotes are the file's notes, then each entity's (named).
func (im *imported) allNotes() []string {
	out := append([]string{}, im.Notes...)
	for _, e := range im.Entities {
		for _, n := range e.Notes {
			out = append(out, "entity "+e.Name+": "+n)
		}
		if e.leftOut != "" {
			out = append(out, "entity "+e.Name+" is left out: "+e.leftOut)
		}
	}
	return out
}

func (im *imported) entity(name string) *impEntity {
	for _, e := range im.Entities {
		if e.Name == name && e.leftOut == "" {
			return e
		}
	}
	return nil
}

// write writes the mapping file.
func (im *imported) write() []byte {
	w := &writer{names: map[string]bool{}}
	w.comment(0, fmt.Sprintf("remodel mapping: a starting design read from %s (%s) by remodel init --from. "+
		"Check it against the source with remodel validate --source DSN -m FILE.", im.file, im.format))
	if notes := im.allNotes(); len(notes) > 0 {
		w.comment(0, "What the file says that this mapping does not (remodel has no equivalent, or the source does not match it); each is also printed on stderr:")
		for _, n := range notes {
			w.comment(0, "  - "+n)
		}
	}
	im.writeTable(w)
	w.line(0, "")
	w.line(0, "entities:")
	written := 0
	for _, e := range im.Entities {
		if e.leftOut == "" {
			written++
			im.writeEntity(w, e)
		}
	}
	if written == 0 {
		w.line(1, "{}")
	}
	im.writePatterns(w)
	return w.buf.Bytes()
}

// writeTable writes table: its name, key, attributes and indexes.
func (im *imported) writeTable(w *writer) {
	w.line(0, "version: 1")
	w.line(0, "table:")
	w.line(1, "name: %s", q(im.Table))
	key := "{pk: " + keyYAML(im.PK)
	if im.SK != nil {
		key += ", sk: " + keyYAML(im.SK)
	}
	w.line(1, "key: %s}", key)
	if im.EntityAttr != "" {
		w.line(1, "entity_attribute: %s", q(im.EntityAttr))
	}
	if im.TTL != "" {
		w.line(1, "ttl: %s", q(im.TTL))
	}
	if m := im.markersYAML(); m != "" {
		w.line(1, "markers: %s", m)
	}
	if len(im.Indexes) > 0 {
		w.line(1, "indexes:")
		for _, ix := range im.Indexes {
			s := "- {name: " + q(ix.Name) + ", pk: " + keyYAML(ix.PK)
			if ix.SK != nil {
				s += ", sk: " + keyYAML(ix.SK)
			}
			switch ix.Projection {
			case "KEYS_ONLY":
				s += ", projection: KEYS_ONLY"
			case "INCLUDE":
				s += ", projection: {include: " + list(ix.Include) + "}"
			}
			w.line(2, "%s}", s)
		}
	}
}

// writeEntity writes entity e.
func (im *imported) writeEntity(w *writer, e *impEntity) {
	w.line(1, "%s:", yamlKey(e.Name))
	for _, n := range e.Notes {
		w.comment(2, n)
	}
	if e.Query != "" {
		w.line(2, "query: %s", q(e.Query))
	} else {
		w.line(2, "from: %s", q(e.From))
	}
	if len(e.Key) > 0 {
		w.line(2, "key: %s", list(e.Key))
	}
	if e.Where != "" {
		w.line(2, "where: %s", q(e.Where))
	}
	w.line(2, "pk: %s", q(e.PK))
	if im.SK != nil {
		w.line(2, "sk: %s", q(e.SK))
	}
	w.line(2, "attributes:")
	w.line(3, "include: %s", list(e.Include))
	for _, m := range []struct {
		name string
		kvs  [][2]string
	}{{"rename", e.Rename}, {"types", e.Types}, {"set", e.Set}} {
		if len(m.kvs) > 0 {
			var parts []string
			for _, kv := range m.kvs {
				parts = append(parts, yamlKey(kv[0])+": "+q(kv[1]))
			}
			w.line(3, "%s: {%s}", m.name, strings.Join(parts, ", "))
		}
	}
	if e.TTLFrom != "" {
		if e.TTLAfter != "" {
			w.line(2, "ttl: {from: %s, after: %s}", q(e.TTLFrom), q(e.TTLAfter))
		} else {
			w.line(2, "ttl: %s", q(e.TTLFrom))
		}
	}
}

// writePatterns writes the access patterns of the entities written.
func (im *imported) writePatterns(w *writer) {
	var pats []*impPattern
	for _, p := range im.Patterns {
		if im.entity(p.Entity) != nil {
			pats = append(pats, p)
		}
	}
	if len(pats) > 0 {
		w.line(0, "")
		w.line(0, "access_patterns:")
		for _, p := range pats {
			w.line(1, "%s:", yamlKey(w.patternName(p.Name)))
			if p.Index != "" {
				w.line(2, "index: %s", q(p.Index))
			}
			qs := "{pk: " + q(p.PK)
			if p.SK != "" {
				qs += ", sk: " + q(p.SK)
			}
			w.line(2, "query: %s}", qs)
			w.line(2, "entity: %s", q(p.Entity))
			w.line(2, "sql: %s", q(p.SQL))
		}
	}
}

// markers keeps the marker sets the file names (remodel.source.markers):
// the known ones, each once; another is a note.
func (im *imported) markers(sets []string, electroDBVersion string) {
	for _, s := range sets {
		switch {
		case s != mapping.MarkersElectroDB && s != mapping.MarkersOneTable && s != mapping.MarkersVersion:
			im.note("marker set %q is not one remodel writes (%s, %s, %s): it is left out", s, mapping.MarkersElectroDB, mapping.MarkersOneTable, mapping.MarkersVersion)
		case !slices.Contains(im.Markers, s):
			im.Markers = append(im.Markers, s)
		}
	}
	if electroDBVersion != "" && slices.Contains(im.Markers, mapping.MarkersElectroDB) {
		im.ElectroDBVersion = electroDBVersion
	}
}

// markersYAML is table.markers as the mapping writes it ("" for none):
// electrodb as {electrodb: {version: V}} when a version is given.
func (im *imported) markersYAML() string {
	var parts []string
	for _, s := range im.Markers {
		if s == mapping.MarkersElectroDB && im.ElectroDBVersion != "" {
			s = "{electrodb: {version: " + q(im.ElectroDBVersion) + "}}"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func keyYAML(k *impKey) string {
	if k.Type == "" || k.Type == "S" {
		return q(k.Name)
	}
	return "{name: " + q(k.Name) + ", type: " + k.Type + "}"
}

func list(ss []string) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, q(s))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// convertTemplate turns a template whose placeholders are {name} (a field
// or an attribute of the design) into remodel's, whose placeholders are
// columns: col maps a name to its column ("" when it has none). Literal
// braces are doubled.
func convertTemplate(tpl string, col func(string) string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tpl); {
		c := tpl[i]
		switch {
		case c == '{':
			end := strings.IndexByte(tpl[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("template %q: an unclosed {", tpl)
			}
			name := strings.TrimSpace(tpl[i+1 : i+end])
			if name == "" || strings.ContainsAny(name, "{|") {
				return "", fmt.Errorf("template %q: placeholder {%s} is not a name", tpl, name)
			}
			cn := col(name)
			if cn == "" {
				return "", fmt.Errorf("template %q: {%s} is not a column of the source, nor a field that stands for one", tpl, name)
			}
			b.WriteString("{" + strings.ReplaceAll(cn, "}", "}}") + "}")
			i += end + 1
		case c == '}':
			b.WriteString("}}")
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

// placeholders lists a design template's {name} placeholders, in order.
func placeholders(tpl string) []string {
	var out []string
	for {
		i := strings.IndexByte(tpl, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(tpl[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, strings.TrimSpace(tpl[i+1:i+j]))
		tpl = tpl[i+j+1:]
	}
}

// snake turns camelCase or CamelCase into snake_case: settingType →
// setting_type, userID → user_id.
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && rs[i-1] != '_' && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// columnLike finds the column of t a design's field name stands for: the
// same name, the same ignoring case, or its snake_case.
func columnLike(t *introspect.Table, name string) string {
	if t == nil {
		return ""
	}
	for _, try := range []func(string) bool{
		func(c string) bool { return c == name },
		func(c string) bool { return strings.EqualFold(c, name) },
		func(c string) bool { return strings.EqualFold(c, snake(name)) },
	} {
		for _, c := range t.Columns {
			if try(c.Name) {
				return c.Name
			}
		}
	}
	return ""
}

// tableLike finds the table an entity name stands for: the name as given
// (schema.name too), then ignoring case, its snake_case, and their plurals.
func tableLike(s *introspect.Schema, name string) *introspect.Table {
	if t, err := s.Table(name); err == nil {
		return t
	}
	var tries []string
	for _, n := range []string{name, snake(name)} {
		tries = append(tries, n, n+"s", n+"es")
		if strings.HasSuffix(n, "y") {
			tries = append(tries, strings.TrimSuffix(n, "y")+"ies")
		}
	}
	def := s.Engine.Dialect().DefaultSchema()
	var found []*introspect.Table
	for _, try := range tries {
		for _, t := range s.Tables {
			if strings.EqualFold(t.Name, try) && !slices.Contains(found, t) {
				found = append(found, t)
			}
		}
		if len(found) > 0 {
			break
		}
	}
	if len(found) == 0 {
		return nil
	}
	for _, t := range found {
		if t.Schema == def {
			return t
		}
	}
	return found[0]
}

// tableRef is how the mapping names t: schema.name unless t is in the
// default schema (or the engine has none).
func tableRef(s *introspect.Schema, t *introspect.Table) string {
	def := s.Engine.Dialect().DefaultSchema()
	if t.Schema == "" || t.Schema == def || def == "" {
		return t.Name
	}
	return t.QualifiedName()
}

// selectSQL is an access pattern's SQL: the entity's rows whose columns
// equal the parameters (remodel's {column} placeholders).
func selectSQL(s *introspect.Schema, e *impEntity, cols []string) string {
	d := s.Engine.Dialect()
	from := e.From
	if e.Query != "" {
		from = "(" + e.Query + ") AS q"
	}
	var conds []string
	for _, c := range cols {
		conds = append(conds, d.QuoteIdent(c)+" = {"+c+"}")
	}
	if e.Where != "" {
		conds = append(conds, "("+e.Where+")")
	}
	sql := "SELECT * FROM " + from
	if len(conds) > 0 {
		sql += " WHERE " + strings.Join(conds, " AND ")
	}
	return sql
}

// defaultType is the DynamoDB type remodel writes a column as by default.
func defaultType(c *introspect.Column) string { return mapping.KindType(c) }

// sortedKeys are a map's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// decodeStrict decodes JSON without failing on fields it does not know
// (a design file carries more than init reads) but on wrong shapes.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	return dec.Decode(v)
}
