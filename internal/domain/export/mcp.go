package export

import (
	"fmt"
	"io"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
	"github.com/remodel-dev/remodel/internal/domain/mapping"
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
	return notes, writeJSON(w, s)
}

// DynamoDBMCPModel builds the schema and the notes.
func DynamoDBMCPModel(p *mapping.Plan, o Options) (*MCPSchema, []string, error) {
	lp, err := newLibPlan(p, o)
	if err != nil {
		return nil, nil, err
	}
	var notes libNotes
	t := &p.Table
	mt := MCPTable{TableConfig: MCPTableConfig{TableName: lp.Table, PartitionKey: t.PK.Name}, Entities: map[string]MCPEntity{}}
	if t.SK != nil {
		mt.TableConfig.SortKey = t.SK.Name
	}
	gsis := map[string]bool{}
	for _, ix := range t.Indexes {
		switch {
		case ix.Local:
			notes.add("index %s is a local index, which schema.json (global indexes only) cannot hold: it is left out", ix.Name)
		case len(ix.PK) > 1 || len(ix.SK) > 1:
			notes.add("index %s has a multi-attribute key (%s / %s): it is left out", ix.Name, mapping.KeyNames(ix.PK), mapping.KeyNames(ix.SK))
		default:
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
			mt.GSIList = append(mt.GSIList, g)
			gsis[ix.Name] = true
		}
	}
	template := func(k *libKey) (string, string) {
		var v strings.Builder
		for _, part := range k.Parts {
			if !part.placeholder() {
				if strings.ContainsAny(part.Lit, "{}\"'\\\n\r") {
					return "", fmt.Sprintf("key %s (%s): its literal %q holds a character schema.json's templates refuse (braces, quotes, backslash, newline)", k.Field, k.Src, part.Lit)
				}
				v.WriteString(part.Lit)
				continue
			}
			if len(part.Fmts) > 0 {
				return "", fmt.Sprintf("key %s (%s): formatter %s has no equivalent in schema.json's templates ({field} only)", k.Field, k.Src, part.Fmts[0])
			}
			if !textKind(part.Col, false) {
				return "", fmt.Sprintf("key %s (%s): column %s (%s) renders as remodel's exact text, which a Python value of the field does not print the same", k.Field, k.Src, part.Column, kindText(part.Col))
			}
			if !ident(part.Attr) {
				return "", fmt.Sprintf("key %s (%s): attribute %s is not a name a schema.json template can hold", k.Field, k.Src, part.Attr)
			}
			v.WriteString("{" + part.Attr + "}")
		}
		if k.Type != "S" && len(k.Parts) > 1 {
			return "", fmt.Sprintf("key %s is a %s built from the template %s: schema.json's templates build strings", k.Field, typeWord(k.Type), k.Src)
		}
		return v.String(), ""
	}
	entities := map[*libEntity]*MCPEntity{}
	var order []*libEntity
	for _, le := range lp.Entities {
		name := le.E.Name
		if !ident(name) {
			notes.add("entity %s is left out: its name is not an identifier (the generated layer names a class after it)", name)
			continue
		}
		me := &MCPEntity{EntityType: strings.ToUpper(name), Fields: []MCPField{}, AccessPatterns: []MCPAccessPattern{}}
		tix := le.Indexes[0]
		var why string
		if me.PKTemplate, why = template(tix.PK[0]); why == "" && len(tix.SK) > 0 {
			me.SKTemplate, why = template(tix.SK[0])
		}
		if why != "" {
			notes.add("entity %s is left out: its table %s", name, why)
			continue
		}
		managed := map[string]bool{}
		for _, ix := range le.Indexes[1:] {
			if !gsis[ix.Name] {
				continue
			}
			gm := MCPGSIMapping{Name: ix.Name}
			gm.PKTemplate, why = template(ix.PK[0])
			if why == "" && len(ix.SK) > 0 {
				gm.SKTemplate, why = template(ix.SK[0])
			}
			if why != "" {
				notes.add("entity %s: its mapping to index %s is left out: %s", name, ix.Name, why)
				continue
			}
			for _, k := range append(append([]*libKey{}, ix.PK...), ix.SK...) {
				if !k.Plain {
					managed[k.Field] = true
				}
				if k.When != "" {
					notes.add("entity %s: key %s of index %s is written by remodel only when %s (a conditional attribute); the generated layer writes it on every write, and reads the index as remodel wrote it", name, k.Field, ix.Name, k.When)
				}
			}
			me.GSIMappings = append(me.GSIMappings, gm)
		}
		required := map[string]bool{}
		for _, ix := range le.Indexes {
			for _, k := range append(append([]*libKey{}, ix.PK...), ix.SK...) {
				for _, a := range k.attrs() {
					required[a] = true
				}
			}
		}
		seen := map[string]bool{}
		field := func(f MCPField) {
			if seen[f.Name] || managed[f.Name] {
				return
			}
			seen[f.Name] = true
			f.Required = required[f.Name]
			me.Fields = append(me.Fields, f)
		}
		for _, a := range le.Attrs {
			if a.Source == mapping.FromMarker {
				continue // the libraries' own (version: the generated layer's counter)
			}
			if a.Source == mapping.FromEntityName {
				notes.add("the entity attribute %s (remodel writes each item's entity name) is not a field of any entity: the generated layer neither reads nor writes it", a.Name)
				continue
			}
			if !ident(a.Name) {
				notes.add("entity %s: attribute %s is left out of its fields: not an identifier", name, a.Name)
				continue
			}
			var col *introspect.Column
			if a.Source == mapping.FromColumn {
				col = a.Column.Column
			}
			f, ok := mcpField(a, col)
			if !ok {
				notes.add("entity %s: attribute %s (%s) is left out of its fields: schema.json has no field type for it", name, a.Name, a.Type)
				continue
			}
			field(f)
		}
		for _, c := range le.KeyOnly {
			f, _ := mcpField(mapping.AttributeDesc{Name: c.Name, Type: mapping.KindType(c)}, c)
			field(f)
		}
		entities[le] = me
		order = append(order, le)
	}
	lp.generalNotes(&notes, "the generated layer")

	id := 0
	for _, pat := range lp.Patterns {
		ap := pat.AP
		host, mp, why := mcpPattern(lp, pat, entities)
		if why != "" {
			notes.add("access pattern %s is left out: %s", ap.Name, why)
			continue
		}
		id++
		mp.PatternID = id
		entities[host].AccessPatterns = append(entities[host].AccessPatterns, mp)
	}
	for _, le := range order {
		mt.Entities[le.E.Name] = *entities[le]
	}
	s := &MCPSchema{Tables: []MCPTable{mt}, Remodel: MCPRemodel{Mapping: o.MappingFile, NotExpressed: notes.Lines()}}
	if s.Remodel.NotExpressed == nil {
		s.Remodel.NotExpressed = []string{}
	}
	return s, notes.Lines(), nil
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
	mp := MCPAccessPattern{Name: ap.Name, Operation: "Query", ReturnType: "entity_list", Parameters: []MCPParameter{}}
	if !ident(ap.Name) {
		return nil, mp, "its name is not an identifier"
	}
	if len(pat.PK) != 1 || len(pat.SKEq) > 1 {
		return nil, mp, "its Query names a multi-attribute key"
	}
	if len(ap.Queries) > 1 {
		mp.ReturnType = "mixed_data"
	}
	host := lp.entity(ap.Queries[0].Entity.Name)
	me := entities[host]
	if me == nil {
		return nil, mp, "entity " + host.E.Name + " is left out"
	}
	idx := indexName(ap)
	if idx != "" {
		mapped := false
		for _, g := range me.GSIMappings {
			mapped = mapped || g.Name == idx
		}
		if !mapped {
			return nil, mp, fmt.Sprintf("entity %s has no mapping to index %s", host.E.Name, idx)
		}
		mp.IndexName = idx
	}
	ix := host.index(idx)
	seen := map[string]bool{}
	param := func(name string, c *introspect.Column) {
		if !seen[name] {
			seen[name] = true
			mp.Parameters = append(mp.Parameters, MCPParameter{Name: name, Type: mcpParamType(c)})
		}
	}
	pkm, ok := matchKey(pat.PK[0], ix.PK[0])
	if !ok || !pkm.Full {
		return nil, mp, fmt.Sprintf("its partition key %s is not entity %s's key %s", pat.Def.PK[0].Value, host.E.Name, ix.PK[0].Src)
	}
	for _, part := range pkm.Bound {
		param(part.Attr, part.Col)
	}
	switch {
	case len(ix.SK) == 0 || (len(pat.SKEq) == 0 && ap.SKOp == ""):
	case ap.SKOp == "":
		m, ok := matchKey(pat.SKEq[0], ix.SK[0])
		if !ok || !m.Full {
			return nil, mp, fmt.Sprintf("its sort key %s is not entity %s's whole sort key %s", pat.Def.SK.Eq[0].Value, host.E.Name, ix.SK[0].Src)
		}
		for _, part := range m.Bound {
			param(part.Attr, part.Col)
		}
		if idx == "" && len(ap.Queries) == 1 {
			mp.Operation, mp.ReturnType = "GetItem", "single_entity"
		}
	default:
		// The generated layer builds the partition key from one parameter
		// and takes the range condition's values as they are.
		if len(mp.Parameters) != 1 {
			return nil, mp, fmt.Sprintf("its partition key has %d parameters; a range condition in schema.json takes exactly one (the partition key's) before the range values", len(mp.Parameters))
		}
		mp.RangeCondition = ap.SKOp
		sk := strings.ToLower(ix.SK[0].Field)
		typ := "string"
		if ix.SK[0].Type == "N" {
			typ = "integer"
		}
		switch ap.SKOp {
		case "begins_with":
			mp.Parameters = append(mp.Parameters, MCPParameter{Name: sk + "_prefix", Type: typ})
		case "between":
			mp.Parameters = append(mp.Parameters, MCPParameter{Name: sk + "_from", Type: typ}, MCPParameter{Name: sk + "_to", Type: typ})
		default:
			mp.Parameters = append(mp.Parameters, MCPParameter{Name: sk + "_value", Type: typ})
		}
		if !ident(sk) {
			return nil, mp, fmt.Sprintf("its sort key %s is not a name a parameter can take", ix.SK[0].Field)
		}
	}
	mp.Description = mcpProse(describeQuery(pat))
	if ap.SKOp != "" {
		var vals []string
		for _, v := range pat.Def.SK.Values {
			vals = append(vals, mcpProse(v.Value))
		}
		mp.Description += ". The range values are the sort key text " + strings.Join(vals, " and ")
	}
	return host, mp, ""
}

// mcpProse writes a text for a description, which the validator refuses
// with braces, double quotes, backslashes or newlines: placeholders as
// <column>.
func mcpProse(s string) string {
	r := strings.NewReplacer("{", "<", "}", ">", "\"", "'", "\\", "/", "\n", " ", "\r", " ")
	return r.Replace(s)
}
