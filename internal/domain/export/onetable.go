package export

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// OneTableSchema is a OneTable schema (format onetable:1.1.0, as its
// specification, doc/schema-1.1.0.md of dynamodb-onetable, states it).
type OneTableSchema struct {
	Format      string                              `json:"format"`
	Version     string                              `json:"version"`
	Description string                              `json:"description"`
	Indexes     map[string]OneTableIndex            `json:"indexes"`
	Models      map[string]map[string]OneTableField `json:"models"`
	Params      OneTableParams                      `json:"params"`
	Queries     map[string]OneTableQuery            `json:"queries"`
	Items       []any                               `json:"items"`
	Extensions  OneTableExtensions                  `json:"extensions"`
}

// OneTableIndex is one index: its key attributes and projection.
type OneTableIndex struct {
	Hash    string `json:"hash,omitempty"`
	Sort    string `json:"sort,omitempty"`
	Type    string `json:"type,omitempty"`    // "local" for a local index
	Project any    `json:"project,omitempty"` // "all", "keys" or a list
}

// OneTableField is one field of a model.
type OneTableField struct {
	Type     string `json:"type"`
	Value    string `json:"value,omitempty"`
	Required bool   `json:"required,omitempty"`
	Default  any    `json:"default,omitempty"`
	Hidden   bool   `json:"hidden,omitempty"`
	// Filter false keeps a find from comparing the field with the items
	// (a key column the items do not hold: its value only builds keys).
	Filter *bool `json:"filter,omitempty"`
}

// OneTableParams are the schema's params.
type OneTableParams struct {
	TypeField string `json:"typeField"`
	IsoDates  bool   `json:"isoDates"`
}

// OneTableQuery is a saved query: an access pattern, its key values as
// value templates of the pattern's parameters.
type OneTableQuery struct {
	Hash      string `json:"hash"`
	Sort      string `json:"sort,omitempty"`
	Index     string `json:"index"`
	Limit     int    `json:"limit"`
	Operation string `json:"operation"`
	Schema    string `json:"schema"`
	Type      string `json:"type"`
	Model     string `json:"model,omitempty"`
	Filters   []any  `json:"filters"`
}

// OneTableExtensions holds remodel's own properties (the specification's
// extensions map).
type OneTableExtensions struct {
	Remodel OneTableRemodel `json:"remodel"`
}

// OneTableRemodel says where the schema comes from, what it does not
// express, and how each access pattern runs through a model's find.
type OneTableRemodel struct {
	Mapping        string                    `json:"mapping"`
	NotExpressed   []string                  `json:"notExpressed"`
	AccessPatterns map[string][]OneTableFind `json:"accessPatterns"`
}

// OneTableFind is one model's find of an access pattern: the index, and
// the properties (model field ← pattern parameter) whose values the
// model's value templates build the key condition from (a sort key whose
// template runs out of properties is read with begins_with on its prefix).
type OneTableFind struct {
	Model      string            `json:"model"`
	Index      string            `json:"index,omitempty"` // "" for the table (find's default)
	Properties map[string]string `json:"properties"`
	Reverse    bool              `json:"reverse,omitempty"`
	Limit      int               `json:"limit,omitempty"`
	// Where is find's where on a secondary index that projects the type
	// field: the type field equal to the model's name. OneTable's find
	// drops the items of other models on the table itself, not on an
	// index, where entities share partitions.
	Where string `json:"where,omitempty"`
}

var oneTableName = regexp.MustCompile(`^[a-zA-Z_]+[\w]*$`)

// OneTable writes the plan as a OneTable schema: one model per entity
// whose key fields have value templates (zero padding as ${field:N:0}),
// the table's indexes, the access patterns as queries (and, under
// extensions.remodel, as the finds that run them). What OneTable cannot
// express is left out and named, in extensions.remodel.notExpressed and
// in the returned notes.
func OneTable(w io.Writer, p *mapping.Plan, o Options) ([]string, error) {
	s, notes, err := OneTableModel(p, o)
	if err != nil {
		return nil, err
	}
	return notes, writeJSON(w, s)
}

// OneTableModel builds the schema and the notes.
func OneTableModel(p *mapping.Plan, o Options) (*OneTableSchema, []string, error) {
	lp, err := newLibPlan(p, o)
	if err != nil {
		return nil, nil, err
	}
	b := &oneTableBuilder{
		lp: lp, t: &p.Table, s: newOneTableSchema(lp, &p.Table, o),
		usable:    map[string]bool{"": true},
		modelKeys: map[*libEntity]map[string]oneKeyed{},
		inIndex:   map[*libEntity]map[string]bool{},
	}
	b.indexes()
	if !oneTableName.MatchString(b.t.EntityAttr) {
		b.notes.add("the entity attribute %s is not a OneTable field name", b.t.EntityAttr)
	}
	for _, le := range lp.Entities {
		b.model(le)
	}
	lp.generalNotes(&b.notes, "OneTable")
	b.patterns()
	b.s.Extensions.Remodel.NotExpressed = b.notes.Lines()
	if b.s.Extensions.Remodel.NotExpressed == nil {
		b.s.Extensions.Remodel.NotExpressed = []string{}
	}
	return b.s, b.notes.Lines(), nil
}

// oneTableBuilder builds a OneTable schema from a library plan: the
// indexes, one model per entity, the access patterns, and the notes on
// what is left out.
type oneTableBuilder struct {
	lp    *libPlan
	t     *mapping.Table
	s     *OneTableSchema
	notes libNotes
	// usable are the indexes a OneTable index holds ("" the table).
	usable map[string]bool
	// modelKeys are each model's key fields; inIndex the indexes whose
	// keys a model's value templates build.
	modelKeys map[*libEntity]map[string]oneKeyed
	inIndex   map[*libEntity]map[string]bool
}

// newOneTableSchema is the schema without models and queries: its header,
// params and primary index.
func newOneTableSchema(lp *libPlan, t *mapping.Table, o Options) *OneTableSchema {
	s := &OneTableSchema{
		Format: "onetable:1.1.0", Version: "0.0.1",
		Description: fmt.Sprintf("The DynamoDB table %s of the remodel mapping %s: one model per entity, its keys as remodel writes them.", lp.Table, orDash(o.MappingFile)),
		Indexes:     map[string]OneTableIndex{},
		Models:      map[string]map[string]OneTableField{},
		Params:      OneTableParams{TypeField: t.OneTableTypeField(), IsoDates: true},
		Queries:     map[string]OneTableQuery{},
		Items:       []any{},
	}
	s.Extensions.Remodel = OneTableRemodel{Mapping: o.MappingFile, AccessPatterns: map[string][]OneTableFind{}}
	primary := OneTableIndex{Hash: t.PK.Name}
	if t.SK != nil {
		primary.Sort = t.SK.Name
	}
	s.Indexes["primary"] = primary
	return s
}

// indexes adds the table's secondary indexes a OneTable index can hold,
// and notes the others.
func (b *oneTableBuilder) indexes() {
	for _, ix := range b.t.Indexes {
		if len(ix.PK) > 1 || len(ix.SK) > 1 {
			b.notes.add("index %s has a multi-attribute key (%s / %s), which a OneTable index (one hash and one sort attribute) cannot hold: it is left out", ix.Name, mapping.KeyNames(ix.PK), mapping.KeyNames(ix.SK))
			continue
		}
		b.s.Indexes[ix.Name] = oneTableIndex(ix)
		b.usable[ix.Name] = true
	}
}

// oneTableIndex is the OneTable index of a secondary index with one hash
// and at most one sort attribute.
func oneTableIndex(ix *mapping.Index) OneTableIndex {
	oi := OneTableIndex{Hash: ix.PK[0].Name}
	if ix.Local {
		oi = OneTableIndex{Type: "local"}
	}
	if len(ix.SK) > 0 {
		oi.Sort = ix.SK[0].Name
	}
	switch ix.Projection {
	case mapping.ProjectKeysOnly:
		oi.Project = "keys"
	case mapping.ProjectInclude:
		oi.Project = ix.Include
	default:
		if !ix.Local {
			oi.Project = "all"
		}
	}
	return oi
}

// oneTableKeyValue is the value template of one key, or why there is none.
func oneTableKeyValue(k *libKey) (string, string) {
	var v strings.Builder
	for _, part := range k.Parts {
		if !part.placeholder() {
			if strings.Contains(part.Lit, "${") {
				return "", fmt.Sprintf("key %s: the literal %q holds ${, which OneTable reads as a placeholder", k.Field, part.Lit)
			}
			v.WriteString(part.Lit)
			continue
		}
		ph, why := oneTablePlaceholder(k, part)
		if why != "" {
			return "", why
		}
		v.WriteString(ph)
	}
	if k.Type != "S" && len(k.Parts) > 1 {
		return "", fmt.Sprintf("key %s is a %s built from the template %s: OneTable's value templates build strings", k.Field, typeWord(k.Type), k.Src)
	}
	return v.String(), ""
}

// oneTablePlaceholder is the ${field} (or ${field:N:0}, zero padded) of
// one placeholder of the key k, or why OneTable cannot write it.
func oneTablePlaceholder(k *libKey, part libPart) (string, string) {
	if !textKind(part.Col, true) {
		return "", fmt.Sprintf("key %s (%s): column %s (%s) renders as remodel's exact text, which OneTable's number or binary value does not print the same", k.Field, k.Src, part.Column, kindText(part.Col))
	}
	if !oneTableName.MatchString(part.Attr) {
		return "", fmt.Sprintf("key %s (%s): attribute %s is not a name a OneTable template can hold", k.Field, k.Src, part.Attr)
	}
	size := ""
	for _, f := range part.Fmts {
		if f.Name == "pad" && part.Col != nil && part.Col.Kind == introspect.KindInt && size == "" {
			size = ":" + f.Arg + ":0"
			continue
		}
		if f.Name == "pad" {
			return "", fmt.Sprintf("key %s (%s): pad on %s (%s) pads the integer part only; OneTable's ${field:size:0} pads the whole text", k.Field, k.Src, part.Column, kindText(part.Col))
		}
		return "", fmt.Sprintf("key %s (%s): formatter %s has no OneTable equivalent", k.Field, k.Src, f)
	}
	return "${" + part.Attr + size + "}", ""
}

// model adds the entity's model, or notes why it is left out.
func (b *oneTableBuilder) model(le *libEntity) {
	name := le.E.Name
	if !oneTableName.MatchString(name) {
		b.notes.add("entity %s is left out: its name is not a OneTable model name (letters, digits, _; OneTable finds an item's model by the entity attribute %s, which holds the entity's name)", name, b.t.EntityAttr)
		return
	}
	keys, why := b.entityKeys(le)
	if why != "" {
		b.notes.add("entity %s is left out: its table %s", name, why)
		return
	}
	b.modelKeys[le] = keys
	m := map[string]OneTableField{}
	for f, kv := range keys {
		if kv.value != "" {
			m[f] = OneTableField{Type: oneTableType(kv.key.Type), Value: kv.value}
		}
	}
	b.attrFields(le, m)
	for _, c := range le.KeyOnly {
		if _, ok := m[c.Name]; !ok {
			noFilter := false
			m[c.Name] = OneTableField{Type: oneTableKindType(c), Required: true, Filter: &noFilter}
		}
	}
	requirePlaceholders(m, keys)
	b.s.Models[name] = m
}

// entityKeys are the key fields of the entity's model, from the indexes
// its value templates can build (noted in inIndex), or why its table's
// own keys cannot be built.
func (b *oneTableBuilder) entityKeys(le *libEntity) (map[string]oneKeyed, string) {
	keys := map[string]oneKeyed{}
	b.inIndex[le] = map[string]bool{}
	for _, ix := range le.Indexes {
		if !b.usable[ix.Name] {
			continue
		}
		local, why := b.indexKeys(le, ix, keys)
		if why != "" {
			return nil, why
		}
		if local == nil {
			continue
		}
		b.inIndex[le][ix.Name] = true
		for f, kv := range local {
			keys[f] = kv
			if kv.key.When != "" {
				b.notes.add("entity %s: key %s of index %s is written by remodel only when %s (a conditional attribute); OneTable writes it on every write of the model, and reads the index as remodel wrote it", le.E.Name, kv.key.Field, ix.Name, kv.key.When)
			}
		}
	}
	return keys, ""
}

// indexKeys are the key fields of one index of the entity: nil when the
// index is left out of the model (noted), and why for the table's own
// keys that OneTable cannot build.
func (b *oneTableBuilder) indexKeys(le *libEntity, ix *libIndex, keys map[string]oneKeyed) (map[string]oneKeyed, string) {
	local := map[string]oneKeyed{}
	for _, k := range append(append([]*libKey{}, ix.PK...), ix.SK...) {
		if k.Plain && len(k.Parts[0].Fmts) == 0 {
			local[k.Field] = oneKeyed{"", k}
			continue
		}
		v, w := oneTableKeyValue(k)
		if w != "" {
			if ix.Name == "" {
				return nil, w
			}
			b.notes.add("entity %s: index %s is left out of its model: %s", le.E.Name, ix.Name, w)
			return nil, ""
		}
		if prev, dup := keys[k.Field]; dup && prev.value != v {
			b.notes.add("entity %s: key %s has two templates (%s, %s)", le.E.Name, k.Field, prev.key.Src, k.Src)
			return nil, ""
		}
		local[k.Field] = oneKeyed{v, k}
	}
	return local, ""
}

// attrFields adds the entity's attributes that are not keys to the model
// m, but the type field OneTable writes itself.
func (b *oneTableBuilder) attrFields(le *libEntity, m map[string]OneTableField) {
	for _, a := range le.Attrs {
		if _, isKey := m[a.Name]; isKey {
			continue
		}
		if a.Name == b.s.Params.TypeField {
			continue // OneTable's typeField, which it writes itself
		}
		if !oneTableName.MatchString(a.Name) {
			b.notes.add("entity %s: attribute %s is left out of its model: not a OneTable field name", le.E.Name, a.Name)
			continue
		}
		if f, ok := oneTableFixed(a, le.E.Name); ok {
			m[a.Name] = f
			continue
		}
		m[a.Name] = OneTableField{Type: oneTableType(a.Type)}
	}
}

// requirePlaceholders marks the fields the keys' value templates read as
// required.
func requirePlaceholders(m map[string]OneTableField, keys map[string]oneKeyed) {
	for _, kv := range keys {
		for _, part := range kv.key.Parts {
			if !part.placeholder() {
				continue
			}
			if fld, ok := m[part.Attr]; ok {
				fld.Required = true
				m[part.Attr] = fld
			}
		}
	}
}

// patterns adds the access patterns as queries and finds, and notes the
// ones left out.
func (b *oneTableBuilder) patterns() {
	for _, pat := range b.lp.Patterns {
		finds, q, why := oneTablePattern(b.lp, pat, b.inIndex, b.modelKeys)
		if why != "" {
			b.notes.add("access pattern %s is left out: %s", pat.AP.Name, why)
			continue
		}
		b.s.Queries[pat.AP.Name] = q
		b.s.Extensions.Remodel.AccessPatterns[pat.AP.Name] = finds
	}
}

func oneTableType(t string) string {
	switch t {
	case "S":
		return "string"
	case "N":
		return "number"
	case "BOOL":
		return "boolean"
	case "B":
		return "binary"
	case "SS", "NS", "BS":
		return "set"
	case "L":
		return "array"
	}
	return "object"
}

func oneTableKindType(c *introspect.Column) string {
	switch tsType(c) {
	case "number":
		return "number"
	case "boolean":
		return "boolean"
	}
	return "string"
}

// oneTableValue writes a pattern's template as a OneTable value template
// of the pattern's parameters.
func oneTableValue(parts []libPart) string {
	var v strings.Builder
	for _, p := range parts {
		if p.placeholder() {
			v.WriteString("${" + p.Column)
			for _, f := range p.Fmts {
				if f.Name == "pad" {
					v.WriteString(":" + f.Arg + ":0")
				}
			}
			v.WriteString("}")
		} else {
			v.WriteString(p.Lit)
		}
	}
	return v.String()
}

// oneKeyed is a model's key field: its value template ("" for an
// attribute that is the key itself) and the key.
type oneKeyed struct {
	value string
	key   *libKey
}

// oneTablePattern is an access pattern as OneTable runs it, or why it
// cannot.
func oneTablePattern(lp *libPlan, pat *libPattern, inIndex map[*libEntity]map[string]bool, modelKeys map[*libEntity]map[string]oneKeyed) ([]OneTableFind, OneTableQuery, string) {
	ap := pat.AP
	q := OneTableQuery{Index: "primary", Limit: 100, Schema: "Current", Type: "Query", Filters: []any{}, Operation: "Begins with"}
	if len(pat.PK) != 1 || len(pat.SKEq) > 1 {
		return nil, q, "its Query names a multi-attribute key"
	}
	idx := indexName(ap)
	if idx != "" {
		q.Index = idx
	}
	if ap.Limit > 0 {
		q.Limit = ap.Limit
	}
	q.Hash = oneTableValue(pat.PK[0])
	switch {
	case len(pat.SKEq) == 1 && ap.SKOp == "":
		q.Operation, q.Sort = "Equal", oneTableValue(pat.SKEq[0])
	case ap.SKOp == "begins_with":
		q.Sort = oneTableValue(pat.SK[0])
	}
	var finds []OneTableFind
	for _, eq := range ap.Queries {
		le := lp.entity(eq.Entity.Name)
		if _, ok := modelKeys[le]; !ok {
			return nil, q, "entity " + le.E.Name + " is left out"
		}
		if !inIndex[le][idx] {
			return nil, q, fmt.Sprintf("entity %s's model is not in %s", le.E.Name, targetWord(ap))
		}
		ix := le.index(idx)
		f := OneTableFind{Model: le.E.Name, Index: idx, Properties: map[string]string{}, Reverse: ap.Order == "desc", Limit: ap.Limit}
		if typeField := lp.P.Table.OneTableTypeField(); ap.Index != nil && ap.Index.Projects(typeField) {
			f.Where = "${" + typeField + "} = {" + strconv.Quote(le.E.Name) + "}"
		}
		bind := func(m keyMatch) {
			for i, part := range m.Bound {
				f.Properties[part.Attr] = m.Params[i]
			}
		}
		pkm, ok := matchKey(pat.PK[0], ix.PK[0])
		if !ok || !pkm.Full {
			return nil, q, fmt.Sprintf("its partition key %s is not entity %s's key %s on %s", pat.Def.PK[0].Value, le.E.Name, ix.PK[0].Src, targetWord(ap))
		}
		bind(pkm)
		switch {
		case len(ix.SK) == 0 || (len(pat.SKEq) == 0 && ap.SKOp == ""):
		case ap.SKOp == "":
			m, ok := matchKey(pat.SKEq[0], ix.SK[0])
			if !ok || !m.Full {
				return nil, q, fmt.Sprintf("its sort key %s is not entity %s's whole sort key %s, and OneTable's find reads a part of a key with begins_with", pat.Def.SK.Eq[0].Value, le.E.Name, ix.SK[0].Src)
			}
			bind(m)
		case ap.SKOp == "begins_with":
			m, ok := matchKey(pat.SK[0], ix.SK[0])
			switch {
			case !ok:
				return nil, q, fmt.Sprintf("its begins_with %s is not a prefix of entity %s's sort key %s", pat.Def.SK.Values[0].Value, le.E.Name, ix.SK[0].Src)
			case m.Full:
				return nil, q, fmt.Sprintf("its begins_with %s is entity %s's whole sort key, which OneTable's find compares with =", pat.Def.SK.Values[0].Value, le.E.Name)
			case m.EndsAtValue:
				return nil, q, fmt.Sprintf("its begins_with %s ends at a value; OneTable's find reads a sort key it has not every value for from the literal before the first missing one (%s)", pat.Def.SK.Values[0].Value, ix.SK[0].Src)
			}
			bind(m)
		default:
			return nil, q, fmt.Sprintf("its sort key condition %s takes raw values in OneTable's find, not values its templates build", ap.SKOp)
		}
		finds = append(finds, f)
	}
	if len(finds) == 1 {
		q.Type, q.Model = "Entity", finds[0].Model
	}
	return finds, q, ""
}

// oneTableFixed is the field of an attribute whose value remodel fixes per
// entity: the entity attribute and the markers (table.markers) other than
// OneTable's type field, with their value as the default a create writes;
// ElectroDB's markers are hidden from what reads return.
func oneTableFixed(a mapping.AttributeDesc, entity string) (OneTableField, bool) {
	switch {
	case a.Source == mapping.FromEntityName:
		return OneTableField{Type: "string", Default: entity}, true
	case a.Source != mapping.FromMarker:
		return OneTableField{}, false
	}
	m := a.Marker
	f := OneTableField{Type: oneTableType(m.Type), Default: m.Value, Hidden: m.Set == mapping.MarkersElectroDB}
	if m.Value == "" {
		f.Default = entity
	} else if m.Type == "N" {
		f.Default, _ = strconv.Atoi(m.Value)
	}
	return f, true
}
