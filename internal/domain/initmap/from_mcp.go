package initmap

import (
	"fmt"
	"slices"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// The DynamoDB MCP server's schema.json (awslabs/mcp, dynamodb-mcp-server,
// repo_generation_tool: schema_definitions.py): tables, each with its
// table_config (name, partition and sort key attributes), gsi_list, and
// entities keyed by name, each with pk_template and sk_template ({field}
// placeholders), gsi_mappings (its templates on each index), fields and
// access_patterns. remodel's own export adds remodel.source: where each
// entity's rows come from and which column each field is, which the file
// itself cannot say; a file without it (AWS's modeler's) is matched to the
// ERD by names.

type mcpFile struct {
	Tables  []mcpTable `json:"tables"`
	Remodel *struct {
		Source *mcpSource `json:"source"`
	} `json:"remodel"`
}

type mcpTable struct {
	TableConfig struct {
		TableName    string `json:"table_name"`
		PartitionKey string `json:"partition_key"`
		SortKey      string `json:"sort_key"`
	} `json:"table_config"`
	GSIList []struct {
		Name               string   `json:"name"`
		PartitionKey       string   `json:"partition_key"`
		SortKey            string   `json:"sort_key"`
		Projection         string   `json:"projection"`
		IncludedAttributes []string `json:"included_attributes"`
	} `json:"gsi_list"`
	Entities map[string]mcpEntity `json:"entities"`
}

type mcpEntity struct {
	EntityType  string `json:"entity_type"`
	PKTemplate  string `json:"pk_template"`
	SKTemplate  string `json:"sk_template"`
	GSIMappings []struct {
		Name       string `json:"name"`
		PKTemplate string `json:"pk_template"`
		SKTemplate string `json:"sk_template"`
	} `json:"gsi_mappings"`
	Fields []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"fields"`
	AccessPatterns []struct {
		PatternID      any    `json:"pattern_id"`
		Name           string `json:"name"`
		Operation      string `json:"operation"`
		IndexName      string `json:"index_name"`
		RangeCondition string `json:"range_condition"`
		Parameters     []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"parameters"`
	} `json:"access_patterns"`
}

type mcpSource struct {
	EntityAttribute string            `json:"entity_attribute"`
	KeyTypes        map[string]string `json:"key_types"`
	TTL             string            `json:"ttl"`
	Markers         []string          `json:"markers"`
	ElectroDBVer    string            `json:"electrodb_version"`
	Entities        map[string]struct {
		From    string            `json:"from"`
		Query   string            `json:"query"`
		Key     []string          `json:"key"`
		Where   string            `json:"where"`
		Columns map[string]string `json:"columns"`
		KeyOnly []string          `json:"key_only"`
		Types   map[string]string `json:"types"`
		TTL     *struct {
			From  string `json:"from"`
			After string `json:"after"`
		} `json:"ttl"`
	} `json:"entities"`
}

func fromMCP(data []byte, s *introspect.Schema, o FromOptions) (*imported, error) {
	var f mcpFile
	if err := decodeStrict(data, &f); err != nil {
		return nil, fmt.Errorf("reading schema.json: %w", err)
	}
	var names []string
	for _, t := range f.Tables {
		names = append(names, t.TableConfig.TableName)
	}
	i, err := pickTable(names, o.Table)
	if err != nil {
		return nil, err
	}
	t := f.Tables[i]
	var src *mcpSource
	if f.Remodel != nil {
		src = f.Remodel.Source
	}
	im := &imported{Table: cmpOr(o.Table, t.TableConfig.TableName)}
	if len(names) > 1 {
		im.note("the file's other tables (%s) are not in this mapping: init --from with --name TABLE maps each", strings.Join(slices.Delete(slices.Clone(names), i, i+1), ", "))
	}
	if im.Table == "" {
		return nil, fmt.Errorf("a table has no table_config.table_name")
	}
	if t.TableConfig.PartitionKey == "" {
		return nil, fmt.Errorf("table %s: table_config has no partition_key", t.TableConfig.TableName)
	}
	keyTypes := map[string]string{}
	if src != nil {
		keyTypes = src.KeyTypes
		im.EntityAttr, im.TTL = src.EntityAttribute, src.TTL
		im.markers(src.Markers, src.ElectroDBVer)
	} else {
		// A file without remodel's source: an index key that is a plain
		// numeric field of an entity is a number.
		for _, e := range t.Entities {
			for _, fl := range e.Fields {
				if fl.Type == "integer" || fl.Type == "decimal" {
					keyTypes[fl.Name] = "N"
				}
			}
		}
	}
	typed := func(name string, table bool) *impKey {
		if name == "" {
			return nil
		}
		k := &impKey{Name: name, Type: keyTypes[name]}
		if table && src == nil {
			k.Type = "" // the table's keys are built from templates: strings
		}
		return k
	}
	im.PK, im.SK = typed(t.TableConfig.PartitionKey, true), typed(t.TableConfig.SortKey, true)
	gsis := map[string]*impIndex{}
	for _, g := range t.GSIList {
		if g.Name == "" || g.PartitionKey == "" {
			im.note("an index of gsi_list without a name or a partition_key is left out")
			continue
		}
		ix := &impIndex{Name: g.Name, PK: typed(g.PartitionKey, false), SK: typed(g.SortKey, false), Projection: g.Projection, Include: g.IncludedAttributes}
		switch g.Projection {
		case "", "ALL", "KEYS_ONLY", "INCLUDE":
		default:
			im.note("index %s: projection %q is not ALL, KEYS_ONLY or INCLUDE: it projects ALL", g.Name, g.Projection)
			ix.Projection = "ALL"
		}
		if gsis[g.Name] != nil {
			im.note("index %s is listed twice in gsi_list: the first is kept", g.Name)
			continue
		}
		gsis[g.Name] = ix
		im.Indexes = append(im.Indexes, ix)
	}
	for _, name := range sortedKeys(t.Entities) {
		me := t.Entities[name]
		e := &impEntity{Name: name, columns: map[string]string{}}
		im.Entities = append(im.Entities, e)
		if name == "" {
			e.leftOut = "its name is empty"
			continue
		}
		mcpEntitySource(s, e, me, src)
		if e.leftOut != "" {
			continue
		}
		mcpKeys(im, s, e, me, gsis)
		if e.leftOut != "" {
			continue
		}
		mcpPatterns(s, im, e, me, gsis)
	}
	return im, nil
}

// cmpOr is the first of a and b that is not empty.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// pickTable is the index of the table named want, or of the only table.
func pickTable(names []string, want string) (int, error) {
	if want == "" {
		if len(names) == 1 {
			return 0, nil
		}
		return 0, fmt.Errorf("the file has %d tables (%s): name the one to map with --name", len(names), strings.Join(names, ", "))
	}
	for i, n := range names {
		if n == want {
			return i, nil
		}
	}
	return 0, fmt.Errorf("the file has no table %q (its tables: %s)", want, strings.Join(names, ", "))
}

// mcpEntitySource fills where the entity's rows come from and which column
// each field is: from remodel.source when the file has it, else by names
// (the entity's table, each field's column).
func mcpEntitySource(s *introspect.Schema, e *impEntity, me mcpEntity, src *mcpSource) {
	if src != nil {
		es, ok := src.Entities[e.Name]
		if !ok {
			e.leftOut = "remodel.source does not say where its rows come from"
			return
		}
		e.From, e.Query, e.Key, e.Where, e.columns = es.From, es.Query, es.Key, es.Where, es.Columns
		if e.columns == nil {
			e.columns = map[string]string{}
		}
		for _, c := range sortedKeys(es.Types) {
			e.Types = append(e.Types, [2]string{c, es.Types[c]})
		}
		if es.TTL != nil {
			e.TTLFrom, e.TTLAfter = es.TTL.From, es.TTL.After
		}
		e.keyOnlyCols = es.KeyOnly
	} else {
		t := tableLike(s, e.Name)
		if t == nil {
			e.leftOut = fmt.Sprintf("no table of the source is named like it (%s, %s, or their plural): write its from: by hand", e.Name, snake(e.Name))
			return
		}
		e.From = tableRef(s, t)
		if len(t.PrimaryKey) == 0 {
			e.note("table %s has no primary key: give key: (the columns that identify a row)", e.From)
		}
		for _, fl := range me.Fields {
			if c := columnLike(t, fl.Name); c != "" {
				e.columns[fl.Name] = c
			} else {
				e.note("field %s (%s) is no column of table %s: no attribute is written for it", fl.Name, fl.Type, e.From)
			}
		}
	}
	// The attributes: the fields from a column, in field order, each
	// column once.
	seen := map[string]string{}
	for _, fl := range me.Fields {
		c, ok := e.columns[fl.Name]
		if !ok {
			if src != nil {
				e.note("field %s (%s) stands for no column (remodel.source): no attribute is written for it", fl.Name, fl.Type)
			}
			continue
		}
		if slices.Contains(e.keyOnlyCols, c) {
			continue
		}
		if other, dup := seen[c]; dup {
			e.note("fields %s and %s are both column %s: only %s is written", other, fl.Name, c, other)
			continue
		}
		seen[c] = fl.Name
		e.Include = append(e.Include, c)
		if fl.Name != c {
			e.Rename = append(e.Rename, [2]string{c, fl.Name})
		}
	}
}

// column is the column a design name stands for: a field's, or a column
// of the entity's table named so.
func (e *impEntity) column(s *introspect.Schema) func(string) string {
	var t *introspect.Table
	if e.Query == "" && s != nil {
		t, _ = s.Table(e.From)
	}
	return func(name string) string {
		if c, ok := e.columns[name]; ok {
			return c
		}
		if t != nil && t.Column(name) != nil {
			return name
		}
		if e.Query != "" {
			return name // a result column of the query: validate checks it
		}
		return ""
	}
}

// mcpKeys converts the entity's table templates and its index mappings
// (an index key that is neither a table key nor a field becomes a set
// attribute).
func mcpKeys(im *imported, s *introspect.Schema, e *impEntity, me mcpEntity, gsis map[string]*impIndex) {
	col := e.column(s)
	var err error
	if e.PK, err = convertTemplate(me.PKTemplate, col); err != nil || me.PKTemplate == "" {
		e.leftOut = fmt.Sprintf("its pk_template %q: %v", me.PKTemplate, errText(err, "empty"))
		return
	}
	switch {
	case im.SK != nil && me.SKTemplate == "":
		e.leftOut = "it has no sk_template, and the table has a sort key (remodel writes both on every item)"
		return
	case im.SK != nil:
		if e.SK, err = convertTemplate(me.SKTemplate, col); err != nil {
			e.leftOut = fmt.Sprintf("its sk_template: %v", err)
			return
		}
	case me.SKTemplate != "":
		e.note("its sk_template %q is ignored: the table has no sort key", me.SKTemplate)
	}
	for _, gm := range me.GSIMappings {
		ix := gsis[gm.Name]
		if ix == nil {
			e.note("its mapping to index %s is left out: gsi_list has no such index", gm.Name)
			continue
		}
		e.indexKey(im, ix, ix.PK, gm.PKTemplate, col)
		if ix.SK != nil {
			if gm.SKTemplate == "" {
				e.note("index %s: its mapping has no sk_template, so its items do not get %s and are not in the index", ix.Name, ix.SK.Name)
				continue
			}
			e.indexKey(im, ix, ix.SK, gm.SKTemplate, col)
		}
	}
}

func errText(err error, otherwise string) string {
	if err != nil {
		return err.Error()
	}
	return otherwise
}

// indexKey makes the entity's items get index key k as template tpl says.
func (e *impEntity) indexKey(im *imported, ix *impIndex, k *impKey, tpl string, col func(string) string) {
	rt, err := convertTemplate(tpl, col)
	if err != nil {
		e.note("index %s: its key %s is left out: %v", ix.Name, k.Name, err)
		return
	}
	switch {
	case k.Name == im.PK.Name || (im.SK != nil && k.Name == im.SK.Name):
		own := e.PK
		if k.Name != im.PK.Name {
			own = e.SK
		}
		if rt != own {
			e.note("index %s: its key %s is the table's key attribute, which the entity writes as %s: the mapping's %s is not written", ix.Name, k.Name, own, tpl)
		}
	case e.attribute(k.Name):
		if rt != "{"+e.columns[k.Name]+"}" {
			e.note("index %s: its key %s is the field %s, which the items hold as it is: the mapping's %s is not written", ix.Name, k.Name, k.Name, tpl)
		}
	default:
		e.addSet(k.Name, rt)
	}
}

// attribute reports whether name is an attribute the items hold from a
// column.
func (e *impEntity) attribute(name string) bool {
	c, ok := e.columns[name]
	return ok && slices.Contains(e.Include, c)
}

// mcpPatterns converts the entity's access patterns that are one Query (or
// GetItem) of a key its parameters give.
func mcpPatterns(s *introspect.Schema, im *imported, e *impEntity, me mcpEntity, gsis map[string]*impIndex) {
	col := e.column(s)
	for _, ap := range me.AccessPatterns {
		name := ap.Name
		if ap.Operation != "Query" && ap.Operation != "GetItem" {
			e.note("access pattern %s (%s) is left out: remodel's access patterns are reads of one Query", name, ap.Operation)
			continue
		}
		if ap.RangeCondition != "" {
			e.note("access pattern %s is left out: its range condition %s takes its values as free parameters, remodel's from columns of the row", name, ap.RangeCondition)
			continue
		}
		pkT, skT := me.PKTemplate, me.SKTemplate
		if ap.IndexName != "" {
			found := false
			for _, gm := range me.GSIMappings {
				if gm.Name == ap.IndexName {
					pkT, skT, found = gm.PKTemplate, gm.SKTemplate, true
				}
			}
			if !found || gsis[ap.IndexName] == nil {
				e.note("access pattern %s is left out: the entity has no mapping to its index %s", name, ap.IndexName)
				continue
			}
		}
		var params []string
		for _, p := range ap.Parameters {
			params = append(params, p.Name)
		}
		missing := func(tpl string) []string {
			var out []string
			for _, ph := range placeholders(tpl) {
				if !slices.Contains(params, ph) {
					out = append(out, ph)
				}
			}
			return out
		}
		if m := missing(pkT); len(m) > 0 {
			e.note("access pattern %s is left out: its parameters do not give %s of the partition key %s", name, strings.Join(m, ", "), pkT)
			continue
		}
		used := placeholders(pkT)
		p := &impPattern{Name: name, Index: ap.IndexName, Entity: e.Name}
		var err error
		if p.PK, err = convertTemplate(pkT, col); err != nil {
			e.note("access pattern %s is left out: %v", name, err)
			continue
		}
		if skT != "" && len(missing(skT)) == 0 && (len(placeholders(skT)) > 0 || ap.Operation == "GetItem") {
			if p.SK, err = convertTemplate(skT, col); err != nil {
				e.note("access pattern %s is left out: %v", name, err)
				continue
			}
			used = append(used, placeholders(skT)...)
		} else if ap.Operation == "GetItem" {
			e.note("access pattern %s (GetItem) reads the partition only: its parameters do not give the sort key %s", name, skT)
		}
		for _, pn := range params {
			if !slices.Contains(used, pn) {
				e.note("access pattern %s: parameter %s is in no key template: not used", name, pn)
			}
		}
		var cols []string
		for _, ph := range used {
			if c := col(ph); !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
		p.SQL = selectSQL(s, e, cols)
		im.Patterns = append(im.Patterns, p)
	}
}
