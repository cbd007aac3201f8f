package export

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// MCPSchema is the schema.json of AWS's DynamoDB MCP server, from which
// its repository generation tool writes a data access layer, with the
// fields and enumerations its validator (repo_generation_tool/core,
// schema_definitions.py) states. Remodel holds where it comes from and
// what it does not express.
type MCPSchema struct {
	Tables  []MCPTable `json:"tables"`
	Remodel MCPRemodel `json:"remodel"`
}

// MCPRemodel is remodel's own part of the file.
type MCPRemodel struct {
	Mapping      string   `json:"mapping"`
	NotExpressed []string `json:"not_expressed"`
	// Source is what schema.json has no place for and init --from needs
	// to read the same rows again: where each entity's rows come from and
	// which column each field stands for.
	Source *MCPSource `json:"source,omitempty"`
}

// MCPSource is the source side of the design: the table's key types and
// entity attribute, and each entity's rows and columns.
type MCPSource struct {
	EntityAttribute string `json:"entity_attribute"`
	// KeyTypes are the key attributes of the table and its indexes whose
	// type is not S (schema.json's keys have no type).
	KeyTypes map[string]string `json:"key_types,omitempty"`
	// TTL is the table's TTL attribute ("" for none).
	TTL string `json:"ttl,omitempty"`
	// Markers are the marker sets every item carries (table.markers:
	// electrodb, onetable, version), in the mapping's order;
	// ElectroDBVersion is the version electrodb's markers write when the
	// mapping gives one ({electrodb: {version: V}}).
	Markers          []string                   `json:"markers,omitempty"`
	ElectroDBVersion string                     `json:"electrodb_version,omitempty"`
	Entities         map[string]MCPEntitySource `json:"entities"`
}

// MCPEntitySource is where one entity's rows come from (from, or query
// and key; where) and which column each of its fields stands for.
type MCPEntitySource struct {
	From  string   `json:"from,omitempty"`
	Query string   `json:"query,omitempty"`
	Key   []string `json:"key,omitempty"`
	Where string   `json:"where,omitempty"`
	// Columns maps each field that holds a column's value to the column.
	Columns map[string]string `json:"columns"`
	// KeyOnly are the fields that only feed a key: the items do not hold
	// them as attributes.
	KeyOnly []string `json:"key_only,omitempty"`
	// Types are the columns stored in another type than by default
	// (attributes.types), TTL the column and offset of the TTL attribute.
	Types map[string]string `json:"types,omitempty"`
	TTL   *MCPTTL           `json:"ttl,omitempty"`
}

// MCPTTL is an entity's TTL: the column and the offset.
type MCPTTL struct {
	From  string `json:"from"`
	After string `json:"after,omitempty"`
}

// MCPTable is one table.
type MCPTable struct {
	TableConfig MCPTableConfig       `json:"table_config"`
	GSIList     []MCPGSI             `json:"gsi_list,omitempty"`
	Entities    map[string]MCPEntity `json:"entities"`
}

// MCPTableConfig names the table and its key attributes.
type MCPTableConfig struct {
	TableName    string `json:"table_name"`
	PartitionKey string `json:"partition_key"`
	SortKey      string `json:"sort_key,omitempty"`
}

// MCPGSI is one global secondary index.
type MCPGSI struct {
	Name               string   `json:"name"`
	PartitionKey       string   `json:"partition_key"`
	SortKey            string   `json:"sort_key,omitempty"`
	Projection         string   `json:"projection,omitempty"`
	IncludedAttributes []string `json:"included_attributes,omitempty"`
}

// MCPEntity is one entity: its key templates, fields, access patterns.
type MCPEntity struct {
	EntityType     string             `json:"entity_type"`
	PKTemplate     string             `json:"pk_template"`
	SKTemplate     string             `json:"sk_template,omitempty"`
	GSIMappings    []MCPGSIMapping    `json:"gsi_mappings,omitempty"`
	Fields         []MCPField         `json:"fields"`
	AccessPatterns []MCPAccessPattern `json:"access_patterns"`
}

// MCPGSIMapping is an entity's key templates on one index.
type MCPGSIMapping struct {
	Name       string `json:"name"`
	PKTemplate string `json:"pk_template"`
	SKTemplate string `json:"sk_template,omitempty"`
}

// MCPField is one field of an entity.
type MCPField struct {
	Name     string `json:"name"`
	Type     string `json:"type"` // string, integer, decimal, boolean, array, object, uuid
	Required bool   `json:"required"`
	ItemType string `json:"item_type,omitempty"`
}

// MCPAccessPattern is one access pattern.
type MCPAccessPattern struct {
	PatternID      int            `json:"pattern_id"`
	Name           string         `json:"name"`
	Description    string         `json:"description"`
	Operation      string         `json:"operation"`
	IndexName      string         `json:"index_name,omitempty"`
	RangeCondition string         `json:"range_condition,omitempty"`
	Parameters     []MCPParameter `json:"parameters"`
	ReturnType     string         `json:"return_type"`
}

// MCPParameter is one parameter of an access pattern.
type MCPParameter struct {
	Name string `json:"name"`
	Type string `json:"type"` // string, integer, boolean, entity
}

// DynamoDBMCP writes the plan as the DynamoDB MCP server's schema.json.
// Its key templates are {field} placeholders only: a key with a formatter
// (or a value whose text a Python value does not print the same) cannot
// be written, and its entity or index is left out and named, under
// remodel.not_expressed and in the returned notes.
func DynamoDBMCP(w io.Writer, p *mapping.Plan, o Options) ([]string, error) {
	s, notes, err := DynamoDBMCPModel(p, o)
	if err != nil {
		return nil, err
	}
	if err := mcpHasEntities(s); err != nil {
		return notes, err
	}
	return notes, writeJSON(w, s)
}

// ErrNoMCPEntity is DynamoDBMCP's error when every entity is left out:
// the MCP server's validator refuses a table without entities, so no file
// is written (the notes say why each is left out).
var ErrNoMCPEntity = errors.New("no entity of the mapping can be written in schema.json, whose validator requires at least one per table: each is left out (the notes say why)")

// mcpHasEntities refuses a schema with a table without entities.
func mcpHasEntities(s *MCPSchema) error {
	for _, t := range s.Tables {
		if len(t.Entities) == 0 {
			return ErrNoMCPEntity
		}
	}
	return nil
}

// DynamoDBMCPModel builds the schema and the notes.
func DynamoDBMCPModel(p *mapping.Plan, o Options) (*MCPSchema, []string, error) {
	lp, err := newLibPlan(p, o)
	if err != nil {
		return nil, nil, err
	}
	b := &mcpBuilder{lp: lp, gsis: map[string]bool{}, entities: map[*libEntity]*MCPEntity{}}
	mt := b.table(&p.Table)
	for _, le := range lp.Entities {
		b.entity(le)
	}
	lp.generalNotes(&b.notes, "the generated layer")
	b.patterns()
	for _, le := range b.order {
		mt.Entities[le.E.Name] = *b.entities[le]
	}
	s := &MCPSchema{Tables: []MCPTable{mt}, Remodel: MCPRemodel{Mapping: o.MappingFile, NotExpressed: b.notes.Lines(), Source: mcpSource(p, b.order)}}
	if s.Remodel.NotExpressed == nil {
		s.Remodel.NotExpressed = []string{}
	}
	return s, b.notes.Lines(), nil
}

// mcpBuilder builds schema.json from a library plan: the table and its
// global indexes, one entity per entity it can write, the access
// patterns, and the notes on what is left out.
type mcpBuilder struct {
	lp    *libPlan
	notes libNotes
	// gsis are the indexes schema.json holds.
	gsis map[string]bool
	// entities are the entities written, in order.
	entities map[*libEntity]*MCPEntity
	order    []*libEntity
}

// table is the table without entities: its keys and the global indexes
// schema.json can hold (the others noted).
func (b *mcpBuilder) table(t *mapping.Table) MCPTable {
	mt := MCPTable{TableConfig: MCPTableConfig{TableName: b.lp.Table, PartitionKey: t.PK.Name}, Entities: map[string]MCPEntity{}}
	if t.SK != nil {
		mt.TableConfig.SortKey = t.SK.Name
	}
	for _, ix := range t.Indexes {
		switch {
		case ix.Local:
			b.notes.add("index %s is a local index, which schema.json (global indexes only) cannot hold: it is left out", ix.Name)
		case len(ix.PK) > 1 || len(ix.SK) > 1:
			b.notes.add("index %s has a multi-attribute key (%s / %s): it is left out", ix.Name, mapping.KeyNames(ix.PK), mapping.KeyNames(ix.SK))
		default:
			mt.GSIList = append(mt.GSIList, mcpGSI(ix))
			b.gsis[ix.Name] = true
		}
	}
	return mt
}

// mcpGSI is the schema.json index of a global index with one key
// attribute each.
func mcpGSI(ix *mapping.Index) MCPGSI {
	g := MCPGSI{Name: ix.Name, PartitionKey: ix.PK[0].Name}
	if len(ix.SK) > 0 {
		g.SortKey = ix.SK[0].Name
	}
	switch ix.Projection {
	case mapping.ProjectKeysOnly:
		g.Projection = "KEYS_ONLY"
	case mapping.ProjectInclude:
		g.Projection, g.IncludedAttributes = "INCLUDE", ix.Include
	default:
		g.Projection = "ALL"
	}
	return g
}

// mcpTemplate is the schema.json template of one key, or why there is
// none.
func mcpTemplate(k *libKey) (string, string) {
	var v strings.Builder
	for _, part := range k.Parts {
		if !part.placeholder() {
			if strings.ContainsAny(part.Lit, "{}\"'\\\n\r") {
				return "", fmt.Sprintf("key %s (%s): its literal %q holds a character schema.json's templates refuse (braces, quotes, backslash, newline)", k.Field, k.Src, part.Lit)
			}
			v.WriteString(part.Lit)
			continue
		}
		if why := mcpPlaceholder(k, part); why != "" {
			return "", why
		}
		v.WriteString("{" + part.Attr + "}")
	}
	if k.Type != "S" && len(k.Parts) > 1 {
		return "", fmt.Sprintf("key %s is a %s built from the template %s: schema.json's templates build strings", k.Field, typeWord(k.Type), k.Src)
	}
	return v.String(), ""
}

// mcpPlaceholder says why a placeholder of the key k cannot be a
// schema.json {field}, or "".
func mcpPlaceholder(k *libKey, part libPart) string {
	switch {
	case len(part.Fmts) > 0:
		return fmt.Sprintf("key %s (%s): formatter %s has no equivalent in schema.json's templates ({field} only)", k.Field, k.Src, part.Fmts[0])
	case !textKind(part.Col, false):
		return fmt.Sprintf("key %s (%s): column %s (%s) renders as remodel's exact text, which a Python value of the field does not print the same", k.Field, k.Src, part.Column, kindText(part.Col))
	case !ident(part.Attr):
		return fmt.Sprintf("key %s (%s): attribute %s is not a name a schema.json template can hold", k.Field, k.Src, part.Attr)
	}
	return ""
}

// mcpKeyTemplates are the templates of an index's partition and sort key
// (one attribute each), or why there are none.
func mcpKeyTemplates(ix *libIndex) (pk, sk, why string) {
	if pk, why = mcpTemplate(ix.PK[0]); why == "" && len(ix.SK) > 0 {
		sk, why = mcpTemplate(ix.SK[0])
	}
	return pk, sk, why
}

// entity adds the entity, or notes why it is left out.
func (b *mcpBuilder) entity(le *libEntity) {
	name := le.E.Name
	if !ident(name) {
		b.notes.add("entity %s is left out: its name is not an identifier (the generated layer names a class after it)", name)
		return
	}
	me := &MCPEntity{EntityType: strings.ToUpper(name), Fields: []MCPField{}, AccessPatterns: []MCPAccessPattern{}}
	var why string
	if me.PKTemplate, me.SKTemplate, why = mcpKeyTemplates(le.Indexes[0]); why != "" {
		b.notes.add("entity %s is left out: its table %s", name, why)
		return
	}
	fs := &mcpFields{me: me, seen: map[string]bool{}, managed: b.gsiMappings(le, me), required: mcpRequired(le)}
	b.fields(le, fs)
	b.entities[le] = me
	b.order = append(b.order, le)
}

// gsiMappings adds the entity's mappings to the global indexes, and
// returns the key fields they manage (written from templates).
func (b *mcpBuilder) gsiMappings(le *libEntity, me *MCPEntity) map[string]bool {
	managed := map[string]bool{}
	for _, ix := range le.Indexes[1:] {
		if !b.gsis[ix.Name] {
			continue
		}
		gm := MCPGSIMapping{Name: ix.Name}
		var why string
		if gm.PKTemplate, gm.SKTemplate, why = mcpKeyTemplates(ix); why != "" {
			b.notes.add("entity %s: its mapping to index %s is left out: %s", le.E.Name, ix.Name, why)
			continue
		}
		for _, k := range append(append([]*libKey{}, ix.PK...), ix.SK...) {
			if !k.Plain {
				managed[k.Field] = true
			}
			if k.When != "" {
				b.notes.add("entity %s: key %s of index %s is written by remodel only when %s (a conditional attribute); the generated layer writes it on every write, and reads the index as remodel wrote it", le.E.Name, k.Field, ix.Name, k.When)
			}
		}
		me.GSIMappings = append(me.GSIMappings, gm)
	}
	return managed
}

// mcpRequired are the attributes the entity's keys are built from.
func mcpRequired(le *libEntity) map[string]bool {
	required := map[string]bool{}
	for _, ix := range le.Indexes {
		for _, k := range append(append([]*libKey{}, ix.PK...), ix.SK...) {
			for _, a := range k.attrs() {
				required[a] = true
			}
		}
	}
	return required
}

// mcpFields collects an entity's fields: each once, none that an index
// mapping manages, required when a key is built from it.
type mcpFields struct {
	me                      *MCPEntity
	seen, managed, required map[string]bool
}

func (fs *mcpFields) add(f MCPField) {
	if fs.seen[f.Name] || fs.managed[f.Name] {
		return
	}
	fs.seen[f.Name] = true
	f.Required = fs.required[f.Name]
	fs.me.Fields = append(fs.me.Fields, f)
}

// fields adds the entity's attributes and key-only columns as fields,
// and notes the attributes left out.
func (b *mcpBuilder) fields(le *libEntity, fs *mcpFields) {
	for _, a := range le.Attrs {
		if f, ok := b.attrField(le, a); ok {
			fs.add(f)
		}
	}
	for _, c := range le.KeyOnly {
		f, _ := mcpField(mapping.AttributeDesc{Name: c.Name, Type: mapping.KindType(c)}, c)
		fs.add(f)
	}
}

// attrField is the field of one attribute of the entity, or false (and a
// note when the attribute is left out).
func (b *mcpBuilder) attrField(le *libEntity, a mapping.AttributeDesc) (MCPField, bool) {
	switch {
	case a.Source == mapping.FromMarker:
		return MCPField{}, false // the libraries' own (version: the generated layer's counter)
	case a.Source == mapping.FromEntityName:
		b.notes.add("the entity attribute %s (remodel writes each item's entity name) is not a field of any entity: the generated layer neither reads nor writes it", a.Name)
		return MCPField{}, false
	case !ident(a.Name):
		b.notes.add("entity %s: attribute %s is left out of its fields: not an identifier", le.E.Name, a.Name)
		return MCPField{}, false
	}
	var col *introspect.Column
	if a.Source == mapping.FromColumn {
		col = a.Column.Column
	}
	f, ok := mcpField(a, col)
	if !ok {
		b.notes.add("entity %s: attribute %s (%s) is left out of its fields: schema.json has no field type for it", le.E.Name, a.Name, a.Type)
	}
	return f, ok
}

// patterns adds the access patterns to their host entities, numbered in
// order, and notes the ones left out.
func (b *mcpBuilder) patterns() {
	id := 0
	for _, pat := range b.lp.Patterns {
		host, mp, why := mcpPattern(b.lp, pat, b.entities)
		if why != "" {
			b.notes.add("access pattern %s is left out: %s", pat.AP.Name, why)
			continue
		}
		id++
		mp.PatternID = id
		b.entities[host].AccessPatterns = append(b.entities[host].AccessPatterns, mp)
	}
}

// mcpSource is the source side of the entities written: what init
// --from reads back with the file.
func mcpSource(p *mapping.Plan, order []*libEntity) *MCPSource {
	src := &MCPSource{EntityAttribute: p.Table.EntityAttr, TTL: p.Table.TTL, Entities: map[string]MCPEntitySource{}}
	src.Markers, src.ElectroDBVersion = mcpMarkers(p.File)
	for name, typ := range p.Table.KeyTypes() {
		if typ != "S" {
			if src.KeyTypes == nil {
				src.KeyTypes = map[string]string{}
			}
			src.KeyTypes[name] = typ
		}
	}
	defs := map[string]*mapping.EntityDef{}
	for _, ed := range p.File.Entities {
		defs[ed.Name.Value] = ed
	}
	for _, le := range order {
		def := defs[le.E.Name]
		es := MCPEntitySource{Columns: map[string]string{}}
		if def != nil {
			es.From, es.Query, es.Where = def.From.Value, def.Query.Value, def.Where.Value
			for _, k := range def.Key {
				es.Key = append(es.Key, k.Value)
			}
			for _, kv := range def.Types {
				if es.Types == nil {
					es.Types = map[string]string{}
				}
				es.Types[kv.Key.Value] = kv.Value.Value
			}
			if def.TTL != nil {
				es.TTL = &MCPTTL{From: def.TTL.From.Value, After: def.TTL.After.Value}
			}
		}
		for _, a := range le.Attrs {
			if a.Source == mapping.FromColumn {
				es.Columns[a.Name] = a.Column.Column.Name
			}
		}
		for _, c := range le.KeyOnly {
			es.Columns[c.Name] = c.Name
			es.KeyOnly = append(es.KeyOnly, c.Name)
		}
		src.Entities[le.E.Name] = es
	}
	return src
}

// mcpMarkers are the marker sets of the mapping file (table.markers), in
// its order, and the ElectroDB version it gives ("" for the default):
// what init --from writes back as table.markers.
func mcpMarkers(f *mapping.File) ([]string, string) {
	if f == nil || f.Table.Markers == nil {
		return nil, ""
	}
	var sets []string
	for _, s := range f.Table.Markers.Sets {
		sets = append(sets, s.Value)
	}
	return sets, f.Table.Markers.ElectroDBVersion.Value
}

// mcpField is the field of an attribute, typed as schema.json's field
// types name it; ok is false for a type it has none for (bytes).
func mcpField(a mapping.AttributeDesc, c *introspect.Column) (MCPField, bool) {
	f := MCPField{Name: a.Name}
	switch a.Type {
	case "S":
		f.Type = "string"
		if c != nil && strings.EqualFold(c.Type, "uuid") {
			f.Type = "uuid"
		}
	case "N":
		f.Type = "decimal"
		if c == nil || c.Kind == introspect.KindInt {
			f.Type = "integer"
		}
	case "BOOL":
		f.Type = "boolean"
	case "SS":
		f.Type, f.ItemType = "array", "string"
	case "NS":
		f.Type, f.ItemType = "array", "decimal"
	case "L":
		f.Type, f.ItemType = "array", "object"
		if c != nil && c.Kind == introspect.KindArray {
			switch c.Elem {
			case introspect.KindInt:
				f.ItemType = "integer"
			case introspect.KindDecimal, introspect.KindFloat:
				f.ItemType = "decimal"
			case introspect.KindBool:
				f.ItemType = "boolean"
			case introspect.KindBytes, introspect.KindJSON:
			default:
				f.ItemType = "string"
			}
		}
	case "M", "":
		f.Type = "object"
	default:
		return f, false
	}
	return f, true
}

func mcpParamType(c *introspect.Column) string {
	switch {
	case c == nil:
		return "string"
	case c.Kind == introspect.KindInt:
		return "integer"
	case c.Kind == introspect.KindBool:
		return "boolean"
	}
	return "string"
}

// mcpPattern is an access pattern as schema.json states it, on the entity
// that holds it (its first), or why it cannot be.
func mcpPattern(lp *libPlan, pat *libPattern, entities map[*libEntity]*MCPEntity) (*libEntity, MCPAccessPattern, string) {
	ap := pat.AP
	b := &mcpPatternBuilder{pat: pat, seen: map[string]bool{}}
	b.mp = MCPAccessPattern{Name: ap.Name, Operation: "Query", ReturnType: "entity_list", Parameters: []MCPParameter{}}
	if !ident(ap.Name) {
		return nil, b.mp, "its name is not an identifier"
	}
	if len(pat.PK) != 1 || len(pat.SKEq) > 1 {
		return nil, b.mp, "its Query names a multi-attribute key"
	}
	if len(ap.Queries) > 1 {
		b.mp.ReturnType = "mixed_data"
	}
	b.host = lp.entity(ap.Queries[0].Entity.Name)
	if why := b.index(entities[b.host]); why != "" {
		return nil, b.mp, why
	}
	if why := b.partitionKey(); why != "" {
		return nil, b.mp, why
	}
	if why := b.sortKey(); why != "" {
		return nil, b.mp, why
	}
	b.describe()
	return b.host, b.mp, ""
}

// mcpPatternBuilder states one access pattern in schema.json: on its
// host entity's table or index, its parameters (each once) and its range
// condition.
type mcpPatternBuilder struct {
	pat  *libPattern
	host *libEntity
	ix   *libIndex
	mp   MCPAccessPattern
	seen map[string]bool
}

// index finds the table or index the pattern reads (me is the host
// entity as written, nil when it is left out), or says why it cannot.
func (b *mcpPatternBuilder) index(me *MCPEntity) string {
	if me == nil {
		return "entity " + b.host.E.Name + " is left out"
	}
	idx := indexName(b.pat.AP)
	if idx != "" {
		mapped := false
		for _, g := range me.GSIMappings {
			mapped = mapped || g.Name == idx
		}
		if !mapped {
			return fmt.Sprintf("entity %s has no mapping to index %s", b.host.E.Name, idx)
		}
		b.mp.IndexName = idx
	}
	b.ix = b.host.index(idx)
	return ""
}

// param adds a parameter, once.
func (b *mcpPatternBuilder) param(name string, c *introspect.Column) {
	if !b.seen[name] {
		b.seen[name] = true
		b.mp.Parameters = append(b.mp.Parameters, MCPParameter{Name: name, Type: mcpParamType(c)})
	}
}

// bind adds the parameters of a key match's bound placeholders.
func (b *mcpPatternBuilder) bind(m keyMatch) {
	for _, part := range m.Bound {
		b.param(part.Attr, part.Col)
	}
}

// partitionKey binds the partition key, which must be the host's whole
// key.
func (b *mcpPatternBuilder) partitionKey() string {
	pkm, ok := matchKey(b.pat.PK[0], b.ix.PK[0])
	if !ok || !pkm.Full {
		return fmt.Sprintf("its partition key %s is not entity %s's key %s", b.pat.Def.PK[0].Value, b.host.E.Name, b.ix.PK[0].Src)
	}
	b.bind(pkm)
	return ""
}

// sortKey binds the sort key's exact template (a GetItem when it names
// one item of the table) or states the range condition.
func (b *mcpPatternBuilder) sortKey() string {
	ap, ix := b.pat.AP, b.ix
	switch {
	case len(ix.SK) == 0 || (len(b.pat.SKEq) == 0 && ap.SKOp == ""):
		return ""
	case ap.SKOp == "":
		m, ok := matchKey(b.pat.SKEq[0], ix.SK[0])
		if !ok || !m.Full {
			return fmt.Sprintf("its sort key %s is not entity %s's whole sort key %s", b.pat.Def.SK.Eq[0].Value, b.host.E.Name, ix.SK[0].Src)
		}
		b.bind(m)
		if ix.Name == "" && len(ap.Queries) == 1 {
			b.mp.Operation, b.mp.ReturnType = "GetItem", "single_entity"
		}
		return ""
	}
	return b.rangeCondition()
}

// rangeCondition states the range condition: the generated layer builds
// the partition key from one parameter and takes the range condition's
// values as they are.
func (b *mcpPatternBuilder) rangeCondition() string {
	ap, sk0 := b.pat.AP, b.ix.SK[0]
	if len(b.mp.Parameters) != 1 {
		return fmt.Sprintf("its partition key has %d parameters; a range condition in schema.json takes exactly one (the partition key's) before the range values", len(b.mp.Parameters))
	}
	b.mp.RangeCondition = ap.SKOp
	sk := strings.ToLower(sk0.Field)
	typ := "string"
	if sk0.Type == "N" {
		typ = "integer"
	}
	switch ap.SKOp {
	case "begins_with":
		b.mp.Parameters = append(b.mp.Parameters, MCPParameter{Name: sk + "_prefix", Type: typ})
	case "between":
		b.mp.Parameters = append(b.mp.Parameters, MCPParameter{Name: sk + "_from", Type: typ}, MCPParameter{Name: sk + "_to", Type: typ})
	default:
		b.mp.Parameters = append(b.mp.Parameters, MCPParameter{Name: sk + "_value", Type: typ})
	}
	if !ident(sk) {
		return fmt.Sprintf("its sort key %s is not a name a parameter can take", sk0.Field)
	}
	return ""
}

// describe writes the pattern's description, with the range values.
func (b *mcpPatternBuilder) describe() {
	b.mp.Description = mcpProse(describeQuery(b.pat))
	if b.pat.AP.SKOp != "" {
		var vals []string
		for _, v := range b.pat.Def.SK.Values {
			vals = append(vals, mcpProse(v.Value))
		}
		b.mp.Description += ". The range values are the sort key text " + strings.Join(vals, " and ")
	}
}

// mcpProse writes a text for a description, which the validator refuses
// with braces, double quotes, backslashes or newlines: placeholders as
// <column>.
func mcpProse(s string) string {
	r := strings.NewReplacer("{", "<", "}", ">", "\"", "'", "\\", "/", "\n", " ", "\r", " ")
	return r.Replace(s)
}
