package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// ElectroDB writes the plan as a TypeScript module for ElectroDB 3: one
// Entity schema per mapping entity (its attributes, and its key templates
// on the table and on each index its items are in, with casing "none"), a
// Service over them, and one function per access pattern that runs the
// pattern's Query through the entities. What ElectroDB cannot express is
// left out and named, in a comment at the top and in the returned notes.
func ElectroDB(w io.Writer, p *mapping.Plan, o Options) (notes []string, err error) {
	lp, err := newLibPlan(p, o)
	if err != nil {
		return nil, err
	}
	g := &electro{lp: lp}
	return g.write(w)
}

type electro struct {
	lp    *libPlan
	notes libNotes
	// keys holds, per entity and index, the ElectroDB key definitions, or
	// the reason they cannot be written.
	keys map[*libEntity]map[string]*electroIndex
	// skipped entities (their table key cannot be written), with the reason.
	skipped map[*libEntity]string
	padding map[*libEntity]map[string]int
}

type electroIndex struct {
	PK, SK *electroKey
	Why    string // why the index is left out of the entity
}

type electroKey struct {
	Field     string   `json:"field"`
	Composite []string `json:"composite"`
	Template  *string  `json:"template,omitempty"`
	Casing    string   `json:"casing"`
	// Cast is "number" for a number key that is one integer column: its
	// template is the column alone, and ElectroDB writes and reads it as a
	// number.
	Cast string `json:"cast,omitempty"`
	key  *libKey
}

// key translates one key of an entity into ElectroDB's form.
func (g *electro) key(le *libEntity, k *libKey) (*electroKey, string) {
	if k.Plain {
		p := k.Parts[0]
		if len(p.Fmts) == 0 {
			return &electroKey{Field: k.Field, Composite: []string{p.Attr}, Casing: "none", key: k}, ""
		}
	}
	if k.Type == "N" && len(k.Parts) == 1 && k.Parts[0].placeholder() && len(k.Parts[0].Fmts) == 0 && k.Parts[0].Col != nil && k.Parts[0].Col.Kind == introspect.KindInt {
		// A number key that is one integer column: ElectroDB casts it.
		t := "${" + k.Parts[0].Attr + "}"
		return &electroKey{Field: k.Field, Composite: []string{k.Parts[0].Attr}, Template: &t, Casing: "none", Cast: "number", key: k}, ""
	}
	if k.Type != "S" {
		return nil, fmt.Sprintf("key %s is a %s built from the template %s: ElectroDB builds templates as strings", k.Field, typeWord(k.Type), k.Src)
	}
	casing := ""
	var tmpl strings.Builder
	for _, p := range k.Parts {
		if !p.placeholder() {
			if strings.Contains(p.Lit, "${") {
				return nil, fmt.Sprintf("key %s: the literal %q holds ${, which ElectroDB reads as a placeholder", k.Field, p.Lit)
			}
			tmpl.WriteString(p.Lit)
			continue
		}
		if !textKind(p.Col, true) {
			return nil, fmt.Sprintf("key %s (%s): column %s (%s) renders as remodel's exact text, which ElectroDB's number or byte value does not print the same", k.Field, k.Src, p.Column, kindText(p.Col))
		}
		for _, f := range p.Fmts {
			switch f.Name {
			case "pad":
				if p.Col == nil || p.Col.Kind != introspect.KindInt {
					return nil, fmt.Sprintf("key %s (%s): pad on %s (%s) pads the integer part only; ElectroDB's padding pads the whole text", k.Field, k.Src, p.Column, kindText(p.Col))
				}
				if prev, ok := g.padding[le][p.Attr]; ok && prev != atoi(f.Arg) {
					return nil, fmt.Sprintf("key %s (%s): attribute %s is padded to %d digits in another key; ElectroDB pads an attribute one way in every key", k.Field, k.Src, p.Attr, prev)
				}
				g.padding[le][p.Attr] = atoi(f.Arg)
			case "lower", "upper":
				if casing != "" && casing != f.Name {
					return nil, fmt.Sprintf("key %s (%s): both lower and upper", k.Field, k.Src)
				}
				casing = f.Name
			default:
				return nil, fmt.Sprintf("key %s (%s): formatter %s has no ElectroDB equivalent", k.Field, k.Src, f)
			}
		}
		tmpl.WriteString("${" + p.Attr + "}")
	}
	if casing != "" {
		// ElectroDB's casing applies to the whole key: the same only when
		// every placeholder has it and the literals do not change.
		for _, p := range k.Parts {
			if p.placeholder() && !hasFmt(p.Fmts, casing) {
				return nil, fmt.Sprintf("key %s (%s): ElectroDB's casing %s applies to the whole key, and not every placeholder is %s-cased", k.Field, k.Src, casing, casing)
			}
			if !p.placeholder() && caseOf(p.Lit, casing) != p.Lit {
				return nil, fmt.Sprintf("key %s (%s): ElectroDB's casing %s applies to the whole key, and would change its literal %q", k.Field, k.Src, casing, p.Lit)
			}
		}
	} else {
		casing = "none"
	}
	// A padded attribute pads in every key it is in: one without pad is
	// checked after all keys are seen (check).
	t := tmpl.String()
	return &electroKey{Field: k.Field, Composite: nonNil(k.attrs()), Template: &t, Casing: casing, key: k}, ""
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func hasFmt(fs []libFmt, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

func caseOf(s, casing string) string {
	if casing == "lower" {
		return strings.ToLower(s)
	}
	return strings.ToUpper(s)
}

func typeWord(t string) string {
	switch t {
	case "N":
		return "number"
	case "B":
		return "binary value"
	}
	return "string"
}

func (g *electro) prepare() {
	lp := g.lp
	g.keys = map[*libEntity]map[string]*electroIndex{}
	g.skipped = map[*libEntity]string{}
	g.padding = map[*libEntity]map[string]int{}
	for _, le := range lp.Entities {
		g.padding[le] = map[string]int{}
		g.keys[le] = map[string]*electroIndex{}
		for _, ix := range le.Indexes {
			ei := &electroIndex{}
			g.keys[le][ix.Name] = ei
			if len(ix.PK) > 1 || len(ix.SK) > 1 {
				ei.Why = fmt.Sprintf("index %s has a multi-attribute key (%s / %s), which an ElectroDB index of this export does not write", ix.Name, mapping.KeyNames(ix.Index.PK), mapping.KeyNames(ix.Index.SK))
				continue
			}
			var why string
			ei.PK, why = g.key(le, ix.PK[0])
			if why == "" && len(ix.SK) == 1 {
				ei.SK, why = g.key(le, ix.SK[0])
			}
			if why != "" {
				ei.PK, ei.SK, ei.Why = nil, nil, why
			}
		}
		// A padded attribute must be padded wherever it is in a key.
		for _, ix := range le.Indexes {
			ei := g.keys[le][ix.Name]
			if ei.Why != "" {
				continue
			}
			for _, k := range append(append([]*libKey{}, ix.PK...), ix.SK...) {
				for _, p := range k.Parts {
					if n, ok := g.padding[le][p.Attr]; ok && p.placeholder() && !hasFmt(p.Fmts, "pad") {
						ei.PK, ei.SK, ei.Why = nil, nil, fmt.Sprintf("key %s (%s): attribute %s is padded to %d digits in another key and not in this one; ElectroDB pads an attribute one way in every key", k.Field, k.Src, p.Attr, n)
					}
				}
			}
		}
		if why := g.keys[le][""].Why; why != "" {
			g.skipped[le] = why
			g.notes.add("entity %s is left out: its table %s", le.E.Name, why)
			continue
		}
		for _, ix := range le.Indexes[1:] {
			ei := g.keys[le][ix.Name]
			if ei.Why != "" {
				g.notes.add("entity %s: index %s is left out of its indexes: %s", le.E.Name, ix.Name, ei.Why)
				continue
			}
			for _, k := range append(append([]*libKey{}, ix.PK...), ix.SK...) {
				if k.When != "" {
					g.notes.add("entity %s: key %s of index %s is written by remodel only when %s (a conditional attribute); ElectroDB writes it on every write of the entity, and reads the index as remodel wrote it", le.E.Name, k.Field, ix.Name, k.When)
				}
			}
		}
		if !ident(le.E.Name) {
			g.notes.add("entity %s: its name is not an identifier; the module names it %q as a property", le.E.Name, le.E.Name)
		}
	}
	lp.generalNotes(&g.notes, "ElectroDB")
}

// electroType is ElectroDB's attribute type for a DynamoDB type.
func electroType(a mapping.AttributeDesc) string {
	switch a.Type {
	case "S":
		return `"string"`
	case "N":
		return `"number"`
	case "BOOL":
		return `"boolean"`
	case "SS":
		return `"set", items: "string"`
	case "NS":
		return `"set", items: "number"`
	}
	return `"any"`
}

func tsType(c *introspect.Column) string {
	if c == nil {
		return "string"
	}
	switch c.Kind {
	case introspect.KindInt, introspect.KindDecimal, introspect.KindFloat:
		return "number"
	case introspect.KindBool:
		return "boolean"
	}
	return "string"
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func jsProp(s string) string {
	if ident(s) {
		return s
	}
	return jsString(s)
}

func jsAccess(obj, s string) string {
	if ident(s) {
		return obj + "." + s
	}
	return obj + "[" + jsString(s) + "]"
}

func (g *electro) write(w io.Writer) ([]string, error) {
	g.prepare()
	var body bytes.Buffer
	g.writeSchemas(&body)
	g.writeEntities(&body)
	g.writeReadOptions(&body)
	g.writePatterns(&body)
	// The head comes last: it names what the body left out.
	var head bytes.Buffer
	g.writeHead(&head)
	if _, err := w.Write(head.Bytes()); err != nil {
		return nil, err
	}
	_, err := w.Write(body.Bytes())
	return g.notes.lines, err
}

// writeSchemas writes the schemas of the entities written, each key as
// remodel writes it.
func (g *electro) writeSchemas(b *bytes.Buffer) {
	fmt.Fprintf(b, "export const tableName = %s;\n\n", jsString(g.lp.Table))
	fmt.Fprintf(b, "// The entities' schemas: each key as remodel writes it (casing \"none\").\n")
	fmt.Fprintf(b, "export const schemas = {\n")
	for _, le := range g.lp.Entities {
		if _, skip := g.skipped[le]; skip {
			continue
		}
		g.writeSchema(b, le)
	}
	fmt.Fprintf(b, "} as const;\n\n")
}

// writeSchema writes one entity's schema: its model, attributes and
// indexes.
func (g *electro) writeSchema(b *bytes.Buffer, le *libEntity) {
	fmt.Fprintf(b, "  %s: {\n", jsProp(le.E.Name))
	fmt.Fprintf(b, "    model: { entity: %s, version: %s, service: %s },\n", jsString(le.E.Name), jsString(g.lp.P.Table.ElectroDBVersion()), jsString(g.lp.Table))
	fmt.Fprintf(b, "    attributes: {\n")
	g.writeAttributes(b, le)
	fmt.Fprintf(b, "    },\n")
	fmt.Fprintf(b, "    indexes: {\n")
	for _, ix := range le.Indexes {
		if ei := g.keys[le][ix.Name]; ei.Why == "" {
			writeElectroIndex(b, ix, ei)
		}
	}
	fmt.Fprintf(b, "    },\n")
	fmt.Fprintf(b, "  },\n")
}

// electroAttrs writes an entity's attribute declarations: each once, none
// for the key fields ElectroDB builds from templates (managed).
type electroAttrs struct {
	b                 *bytes.Buffer
	declared, managed map[string]bool
}

func (ea *electroAttrs) add(name, def string) {
	if ea.declared[name] || ea.managed[name] {
		return
	}
	ea.declared[name] = true
	fmt.Fprintf(ea.b, "      %s: { %s },\n", jsProp(name), def)
}

// writeAttributes writes the entity's attributes and its key-only
// columns.
func (g *electro) writeAttributes(b *bytes.Buffer, le *libEntity) {
	required := map[string]bool{}
	ea := &electroAttrs{b: b, declared: map[string]bool{}, managed: map[string]bool{}}
	for _, ei := range g.keys[le] {
		for _, k := range []*electroKey{ei.PK, ei.SK} {
			if k == nil {
				continue
			}
			for _, c := range k.Composite {
				required[c] = true
			}
			if k.Template != nil {
				ea.managed[k.Field] = true
			}
		}
	}
	for _, a := range le.Attrs {
		if def, ok := g.attrDef(le, a, required[a.Name]); ok {
			ea.add(a.Name, def)
		}
	}
	for _, c := range le.KeyOnly {
		def := "type: \"" + tsType(c) + "\", required: true"
		if n, ok := g.padding[le][c.Name]; ok {
			def += fmt.Sprintf(", padding: { length: %d, char: \"0\" }", n)
		}
		ea.add(c.Name, def)
	}
}

// attrDef is the declaration of one attribute of the entity (required
// when a key is built from it), or false for ElectroDB's own markers.
func (g *electro) attrDef(le *libEntity, a mapping.AttributeDesc, required bool) (string, bool) {
	def := "type: " + electroType(a)
	switch a.Source {
	case mapping.FromEntityName:
		def += ", default: " + jsString(le.E.Name) + ", readOnly: true"
	case mapping.FromMarker:
		if a.Marker.Set == mapping.MarkersElectroDB {
			return "", false // ElectroDB's own, which it writes and hides
		}
		if a.Marker.Value == "" {
			def += ", default: " + jsString(le.E.Name) + ", readOnly: true"
		} else {
			def += ", default: " + a.Marker.Value // version: 1
		}
	case mapping.FromColumn:
		if required {
			def += ", required: true"
		}
		if n, ok := g.padding[le][a.Name]; ok {
			def += fmt.Sprintf(", padding: { length: %d, char: \"0\" }", n)
		}
	}
	return def, true
}

// writeElectroIndex writes one index of an entity's schema ("primary" for
// the table).
func writeElectroIndex(b *bytes.Buffer, ix *libIndex, ei *electroIndex) {
	name := "primary"
	if ix.Name != "" {
		name = ix.Name
	}
	fmt.Fprintf(b, "      %s: {\n", jsProp(name))
	if ix.Name != "" {
		fmt.Fprintf(b, "        index: %s,\n", jsString(ix.Name))
	}
	writeElectroKey(b, "pk", ei.PK)
	writeElectroKey(b, "sk", ei.SK)
	fmt.Fprintf(b, "      },\n")
}

// writeElectroKey writes the key n (pk or sk) of an index, if it has one.
func writeElectroKey(b *bytes.Buffer, n string, k *electroKey) {
	if k == nil {
		return
	}
	var comp []string
	for _, c := range k.Composite {
		comp = append(comp, jsString(c))
	}
	tmpl := ""
	if k.Template != nil {
		tmpl = ", template: " + jsString(*k.Template)
	}
	if k.Cast != "" {
		tmpl += ", cast: " + jsString(k.Cast)
	}
	fmt.Fprintf(b, "        %s: { field: %s, composite: [%s]%s, casing: %s },\n", n, jsString(k.Field), strings.Join(comp, ", "), tmpl, jsString(k.Casing))
}

// writeEntities writes the functions that make the entities and the
// service over them.
func (g *electro) writeEntities(b *bytes.Buffer) {
	fmt.Fprintf(b, "export function entities(client: DynamoDBDocumentClient, table: string = tableName) {\n  return {\n")
	for _, le := range g.lp.Entities {
		if _, skip := g.skipped[le]; skip {
			continue
		}
		fmt.Fprintf(b, "    %s: new Entity(%s, { client, table }),\n", jsProp(le.E.Name), jsAccess("schemas", le.E.Name))
	}
	fmt.Fprintf(b, "  };\n}\n\nexport type Entities = ReturnType<typeof entities>;\n\n")
	fmt.Fprintf(b, "export function service(client: DynamoDBDocumentClient, table: string = tableName) {\n  return new Service(entities(client, table));\n}\n\n")
}

// writeReadOptions writes the options the access patterns read with:
// ignoring ownership when the items carry no ElectroDB markers, or on an
// index that does not project them.
func (g *electro) writeReadOptions(b *bytes.Buffer) {
	t := &g.lp.P.Table
	if !t.HasMarkers(mapping.MarkersElectroDB) {
		fmt.Fprintf(b, "// remodel's items carry no ElectroDB markers (__edb_e__, __edb_v__):\n// reads ignore ownership, and read every page.\n")
		fmt.Fprintf(b, "const read = { ignoreOwnership: true, pages: \"all\" } as const;\n")
		return
	}
	fmt.Fprintf(b, "// remodel writes ElectroDB's markers (__edb_e__, __edb_v__) on every item\n// (table.markers): reads check ownership, and read every page.\n")
	fmt.Fprintf(b, "const read = { pages: \"all\" } as const;\n")
	if slices.ContainsFunc(t.Indexes, g.unowned) {
		fmt.Fprintf(b, "// An index that does not project the markers is read ignoring ownership.\n")
		fmt.Fprintf(b, "const readUnowned = { ignoreOwnership: true, pages: \"all\" } as const;\n")
	}
}

// writePatterns writes one function per access pattern ElectroDB can
// read (the others noted) and the accessPatterns object that lists them.
func (g *electro) writePatterns(b *bytes.Buffer) {
	var names []string
	for _, pat := range g.lp.Patterns {
		fn, why := g.pattern(pat)
		if why != "" {
			g.notes.add("access pattern %s is left out: %s", pat.AP.Name, why)
			continue
		}
		b.WriteString("\n" + fn)
		names = append(names, pat.AP.Name)
	}
	fmt.Fprintf(b, "\nexport const accessPatterns = {")
	for i, n := range names {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + n)
	}
	if len(names) > 0 {
		b.WriteString(" ")
	}
	fmt.Fprintf(b, "};\n")
}

// writeHead writes the module's comment, with the notes on what it does
// not express, and its imports.
func (g *electro) writeHead(head *bytes.Buffer) {
	fmt.Fprintf(head, "// Code generated by remodel export --output electrodb from %s. DO NOT EDIT.\n", orDash(g.lp.mappingFile))
	fmt.Fprintf(head, "//\n// ElectroDB 3 entities for the items remodel migrates into the DynamoDB table\n// %s: one Entity per mapping entity, a Service over them, and one function\n// per access pattern.\n", g.lp.Table)
	if len(g.notes.lines) == 0 {
		fmt.Fprintf(head, "//\n// Everything of the mapping is expressed.\n")
	} else {
		fmt.Fprintf(head, "//\n// Not expressed here (ElectroDB cannot read or write it as remodel does):\n")
		for _, n := range g.notes.lines {
			fmt.Fprintf(head, "//   - %s\n", wrapComment(n, "//     "))
		}
	}
	fmt.Fprintf(head, "\nimport { Entity, Service } from \"electrodb\";\nimport type { DynamoDBDocumentClient } from \"@aws-sdk/lib-dynamodb\";\n\n")
}

func orDash(s string) string {
	if s == "" {
		return "a mapping"
	}
	return s
}

// wrapComment breaks a note into comment lines of at most about 80
// characters, the following ones starting with prefix.
func wrapComment(s, prefix string) string {
	var out strings.Builder
	col := 0
	for i, word := range strings.Fields(s) {
		if i > 0 {
			if col+1+len(word) > 72 {
				out.WriteString("\n" + prefix)
				col = 0
			} else {
				out.WriteByte(' ')
				col++
			}
		}
		out.WriteString(word)
		col += len(word)
	}
	return out.String()
}

// pattern writes one access pattern's function, or says why it cannot.
func (g *electro) pattern(pat *libPattern) (string, string) {
	if len(pat.PK) != 1 || len(pat.SKEq) > 1 {
		return "", "its Query names a multi-attribute key"
	}
	ps := &electroParams{types: map[string]*introspect.Column{}}
	var calls []electroCall
	for _, q := range pat.AP.Queries {
		c, why := g.patternCall(pat, q.Entity.Name, ps)
		if why != "" {
			return "", why
		}
		calls = append(calls, c)
	}
	if !ident(pat.AP.Name) {
		return "", "its name is not an identifier"
	}
	return electroFunction(pat, ps, calls), ""
}

// electroCall is one entity's query of an access pattern's function.
type electroCall struct{ entity, expr string }

// electroParams are the parameters of an access pattern's function, in
// the order first bound, with their columns (which give their types).
type electroParams struct {
	types map[string]*introspect.Column
	order []string
}

func (ps *electroParams) add(name string, c *introspect.Column) {
	if _, ok := ps.types[name]; !ok {
		ps.order = append(ps.order, name)
	}
	ps.types[name] = c
}

// electroProps are the properties a query's key composite is given
// (attribute ← parameter), in the order first bound.
type electroProps struct {
	vals  map[string]string
	order []string
}

// bind gives the properties the values of a key match's bound
// placeholders, and adds their parameters.
func (pr *electroProps) bind(m keyMatch, ps *electroParams) {
	for i, part := range m.Bound {
		if _, ok := pr.vals[part.Attr]; !ok {
			pr.order = append(pr.order, part.Attr)
		}
		pr.vals[part.Attr] = "p." + m.Params[i]
		ps.add(m.Params[i], part.Col)
	}
}

// jsObject is the object literal of the keys with their values.
func jsObject(keys []string, vals map[string]string) string {
	if len(keys) == 0 {
		return "{}"
	}
	var s []string
	for _, k := range keys {
		s = append(s, jsProp(k)+": "+vals[k])
	}
	return "{ " + strings.Join(s, ", ") + " }"
}

// rangeObject is the object literal a sort key condition compares with:
// the match's bound placeholders, whose parameters it adds.
func rangeObject(m keyMatch, ps *electroParams) string {
	vals := map[string]string{}
	var keys []string
	for i, part := range m.Bound {
		keys = append(keys, part.Attr)
		vals[part.Attr] = "p." + m.Params[i]
		ps.add(m.Params[i], part.Col)
	}
	return jsObject(keys, vals)
}

// patternCall is the query of the access pattern on one of its entities,
// or why ElectroDB cannot run it.
func (g *electro) patternCall(pat *libPattern, entity string, ps *electroParams) (electroCall, string) {
	ap := pat.AP
	le, ix, why := g.patternIndex(ap, entity)
	if why != "" {
		return electroCall{}, why
	}
	pkm, ok := matchKey(pat.PK[0], ix.PK[0])
	if !ok || !pkm.Full {
		return electroCall{}, fmt.Sprintf("its partition key %s is not entity %s's key %s on %s", pat.Def.PK[0].Value, le.E.Name, ix.PK[0].Src, targetWord(ap))
	}
	props := &electroProps{vals: map[string]string{}}
	props.bind(pkm, ps)
	tail, why := electroSortCondition(pat, le, ix, props, ps)
	if why != "" {
		return electroCall{}, why
	}
	accessor := "primary"
	if ix.Name != "" {
		accessor = ix.Name
	}
	expr := fmt.Sprintf("(await %s.query[%s](%s)%s.go(%s)).data", jsAccess("e", le.E.Name), jsString(accessor), jsObject(props.order, props.vals), tail, g.readOptions(ap))
	return electroCall{le.E.Name, expr}, ""
}

// patternIndex is the entity and the index the access pattern reads it
// on, or why ElectroDB cannot.
func (g *electro) patternIndex(ap *mapping.AccessPattern, entity string) (*libEntity, *libIndex, string) {
	le := g.lp.entity(entity)
	if _, skip := g.skipped[le]; skip {
		return nil, nil, "entity " + le.E.Name + " is left out"
	}
	ix := le.index(indexName(ap))
	if ix == nil {
		return nil, nil, fmt.Sprintf("entity %s's items are not in %s", le.E.Name, targetWord(ap))
	}
	if ei := g.keys[le][ix.Name]; ei.Why != "" {
		return nil, nil, fmt.Sprintf("entity %s: %s is left out", le.E.Name, targetWord(ap))
	}
	return le, ix, ""
}

// electroSortCondition is the query's sort key condition: "" when there
// is none or the sort key is bound as properties, else ElectroDB's range
// method (begins, between, lt, ...); or why ElectroDB cannot read it.
func electroSortCondition(pat *libPattern, le *libEntity, ix *libIndex, props *electroProps, ps *electroParams) (string, string) {
	ap := pat.AP
	switch {
	case len(ix.SK) == 0 || (len(pat.SKEq) == 0 && ap.SKOp == ""):
		return "", ""
	case ap.SKOp == "":
		m, ok := matchKey(pat.SKEq[0], ix.SK[0])
		if !ok || !m.Full {
			return "", fmt.Sprintf("its sort key %s is not entity %s's whole sort key %s, and ElectroDB reads a part of a key with begins_with", pat.Def.SK.Eq[0].Value, le.E.Name, ix.SK[0].Src)
		}
		props.bind(m, ps)
		return "", ""
	case ap.SKOp == "begins_with":
		m, ok := matchKey(pat.SK[0], ix.SK[0])
		if !ok {
			return "", fmt.Sprintf("its begins_with %s is not a prefix of entity %s's sort key %s that ElectroDB builds (the whole key, up to a value, or up to the end of a literal)", pat.Def.SK.Values[0].Value, le.E.Name, ix.SK[0].Src)
		}
		if m.Full || m.EndsAtValue {
			return ".begins(" + rangeObject(m, ps) + ")", ""
		}
		props.bind(m, ps)
		return "", ""
	}
	return electroRange(pat, le, ix, ps)
}

// electroRange is the query's comparison of the sort key (between, <,
// <=, >, >=), or why ElectroDB cannot make it.
func electroRange(pat *libPattern, le *libEntity, ix *libIndex, ps *electroParams) (string, string) {
	ap := pat.AP
	var args []string
	for i, v := range pat.SK {
		m, ok := matchKey(v, ix.SK[0])
		if !ok || !(m.Full || m.EndsAtValue) {
			return "", fmt.Sprintf("its %s value %s is not entity %s's sort key %s up to a value, which is what ElectroDB compares", ap.SKOp, pat.Def.SK.Values[i].Value, le.E.Name, ix.SK[0].Src)
		}
		args = append(args, rangeObject(m, ps))
	}
	op := map[string]string{"between": "between", "<": "lt", "<=": "lte", ">": "gt", ">=": "gte"}[ap.SKOp]
	return "." + op + "(" + strings.Join(args, ", ") + ")", ""
}

// readOptions are the options a query of the access pattern runs with.
func (g *electro) readOptions(ap *mapping.AccessPattern) string {
	opts := "read"
	if g.unowned(ap.Index) {
		opts = "readUnowned"
	}
	var extra []string
	if ap.Order == "desc" {
		extra = append(extra, `order: "desc"`)
	}
	if ap.Limit > 0 {
		// ElectroDB's limit is each request's Limit; count is how many
		// items the query returns, over as many pages as needed.
		extra = append(extra, fmt.Sprintf("count: %d", ap.Limit))
	}
	if len(extra) > 0 {
		opts = "{ ..." + opts + ", " + strings.Join(extra, ", ") + " }"
	}
	return opts
}

// electroFunction is the access pattern's function: one query's items,
// or an object of every entity's.
func electroFunction(pat *libPattern, ps *electroParams, calls []electroCall) string {
	ap := pat.AP
	var sig []string
	for _, n := range ps.order {
		sig = append(sig, jsProp(n)+": "+tsType(ps.types[n]))
	}
	var f strings.Builder
	fmt.Fprintf(&f, "/** %s: %s. */\n", ap.Name, describeQuery(pat))
	fmt.Fprintf(&f, "export async function %s(e: Entities, p: { %s }) {\n", ap.Name, strings.Join(sig, "; "))
	if len(calls) == 1 {
		fmt.Fprintf(&f, "  return %s;\n}\n", calls[0].expr)
		return f.String()
	}
	fmt.Fprintf(&f, "  return {\n")
	for _, c := range calls {
		fmt.Fprintf(&f, "    %s: %s,\n", jsProp(c.entity), c.expr)
	}
	fmt.Fprintf(&f, "  };\n}\n")
	return f.String()
}

func indexName(ap *mapping.AccessPattern) string {
	if ap.Index == nil {
		return ""
	}
	return ap.Index.Name
}

func targetWord(ap *mapping.AccessPattern) string {
	if ap.Index == nil {
		return "the table"
	}
	return "index " + ap.Index.Name
}

// describeQuery is the pattern's Query as the mapping writes it.
func describeQuery(pat *libPattern) string {
	d := pat.Def
	var pk []string
	for _, s := range d.PK {
		pk = append(pk, s.Value)
	}
	s := "Query " + strings.Join(pk, ", ")
	if d.SK != nil {
		var eq []string
		for _, v := range d.SK.Eq {
			eq = append(eq, v.Value)
		}
		if len(eq) > 0 {
			s += " = " + strings.Join(eq, ", ")
		}
		if d.SK.Op != "" {
			var vals []string
			for _, v := range d.SK.Values {
				vals = append(vals, v.Value)
			}
			s += ", sort key " + d.SK.Op + " " + strings.Join(vals, " and ")
		}
	}
	s += " on " + targetWord(pat.AP)
	if pat.AP.Order != "" {
		s += ", " + pat.AP.Order
	}
	if pat.AP.Limit > 0 {
		s += fmt.Sprintf(", first %d", pat.AP.Limit)
	}
	return s
}

// unowned says whether reads of the index (nil: the table) must ignore
// ownership although the items carry ElectroDB's markers: the index does
// not project them, so ElectroDB would take its items for another
// entity's.
func (g *electro) unowned(ix *mapping.Index) bool {
	return ix != nil && g.lp.P.Table.HasMarkers(mapping.MarkersElectroDB) &&
		!(ix.Projects(mapping.ElectroDBEntityAttr) && ix.Projects(mapping.ElectroDBVersionAttr))
}
