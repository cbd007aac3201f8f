package export

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/mapping"
)

// WorkbenchModel is a NoSQL Workbench data model (format version 3.0), as
// Workbench's data modeler imports and exports it.
type WorkbenchModel struct {
	ModelName     string
	ModelMetadata WorkbenchMetadata
	DataModel     []WorkbenchTable
}

// WorkbenchMetadata describes the model.
type WorkbenchMetadata struct {
	Author           string
	DateCreated      string
	DateLastModified string
	Description      string
	AWSService       string
	Version          string
}

// WorkbenchTable is one table of the model.
type WorkbenchTable struct {
	TableName              string
	KeyAttributes          WorkbenchKeys
	NonKeyAttributes       []WorkbenchAttribute
	TableFacets            []WorkbenchFacet
	GlobalSecondaryIndexes []WorkbenchIndex
	// TableData are the sample items, in DynamoDB JSON.
	TableData                   []json.RawMessage
	DataAccess                  map[string]struct{}
	BillingMode                 string
	ProvisionedCapacitySettings *WorkbenchCapacity `json:",omitempty"`
}

// WorkbenchKeys are a table's or an index's key attributes.
type WorkbenchKeys struct {
	PartitionKey WorkbenchAttribute
	SortKey      *WorkbenchAttribute `json:",omitempty"`
}

// WorkbenchAttribute is an attribute and its DynamoDB type.
type WorkbenchAttribute struct {
	AttributeName string
	AttributeType string
}

// WorkbenchFacet is a view of the table's items: here one access pattern,
// with the key templates of its Query as the key columns' aliases.
type WorkbenchFacet struct {
	FacetName         string
	KeyAttributeAlias WorkbenchAlias
	TableData         []json.RawMessage
	NonKeyAttributes  []string
	DataAccess        map[string]struct{}
}

// WorkbenchAlias names a facet's key columns.
type WorkbenchAlias struct {
	PartitionKeyAlias string
	SortKeyAlias      string `json:",omitempty"`
}

// WorkbenchIndex is one global index.
type WorkbenchIndex struct {
	IndexName     string
	KeyAttributes WorkbenchKeys
	Projection    Projection
}

// WorkbenchCapacity is provisioned capacity.
type WorkbenchCapacity struct {
	ProvisionedThroughput Throughput
}

// WorkbenchOptions are the Workbench export's options.
type WorkbenchOptions struct {
	Options
	// Now dates the model (DateCreated, DateLastModified).
	Now time.Time
}

// workbenchDate is how Workbench writes dates: "Jan 12, 2023, 10:14 AM".
const workbenchDate = "Jan 2, 2006, 03:04 PM"

// Workbench writes the plan as a NoSQL Workbench data model with the
// previewed items as its sample data.
func Workbench(w io.Writer, p *mapping.Plan, res *preview.Result, o WorkbenchOptions) error {
	m, err := WorkbenchDataModel(p, res, o)
	if err != nil {
		return err
	}
	return writeJSON(w, m)
}

// WorkbenchDataModel builds the data model. It refuses a mapping that a
// Workbench model cannot hold: a local index, a multi-attribute key.
func WorkbenchDataModel(p *mapping.Plan, res *preview.Result, o WorkbenchOptions) (*WorkbenchModel, error) {
	t := &p.Table
	if err := workbenchHolds(t); err != nil {
		return nil, err
	}
	name := t.Name
	if o.TableName != "" {
		name = o.TableName
	}
	wt := newWorkbenchTable(t, name)
	// The attributes of every entity, in entity order, each once, typed as
	// the samples hold them or else as its column converts.
	attrs, perEntity := entityAttributes(p, res)
	wt.NonKeyAttributes = attrs
	wt.GlobalSecondaryIndexes = workbenchIndexes(t)
	facets, onIndex := workbenchFacets(p, perEntity)
	wt.TableFacets = append(wt.TableFacets, facets...)
	wt.TableData = append(wt.TableData, workbenchItems(t, res)...)
	date := o.Now.UTC().Format(workbenchDate)
	return &WorkbenchModel{
		ModelName: name,
		ModelMetadata: WorkbenchMetadata{
			Author: "remodel", DateCreated: date, DateLastModified: date,
			Description: workbenchDescription(p, name, o.MappingFile, onIndex), AWSService: "Amazon DynamoDB", Version: "3.0",
		},
		DataModel: []WorkbenchTable{wt},
	}, nil
}

// workbenchHolds refuses a table a Workbench model cannot hold: a local
// index, a multi-attribute key.
func workbenchHolds(t *mapping.Table) error {
	for _, ix := range t.Indexes {
		if ix.Local {
			return fmt.Errorf("export: index %s is a local index, which a NoSQL Workbench data model cannot hold (it has global indexes only): use --output cloudformation", ix.Name)
		}
		if len(ix.PK) > 1 || len(ix.SK) > 1 {
			return fmt.Errorf("export: index %s has a multi-attribute key (%s / %s), which a NoSQL Workbench data model cannot hold (one partition and one sort key attribute per index): use --output cloudformation", ix.Name, mapping.KeyNames(ix.PK), mapping.KeyNames(ix.SK))
		}
	}
	return nil
}

// newWorkbenchTable is the table named name without attributes, indexes,
// facets or items: its keys and billing.
func newWorkbenchTable(t *mapping.Table, name string) WorkbenchTable {
	wt := WorkbenchTable{
		TableName:   name,
		DataAccess:  map[string]struct{}{"MySql": {}},
		BillingMode: "PAY_PER_REQUEST",
		TableFacets: []WorkbenchFacet{},
		TableData:   []json.RawMessage{},
	}
	wt.KeyAttributes.PartitionKey = WorkbenchAttribute{t.PK.Name, t.PK.Type}
	if t.SK != nil {
		wt.KeyAttributes.SortKey = &WorkbenchAttribute{t.SK.Name, t.SK.Type}
	}
	if t.Billing.Provisioned {
		wt.BillingMode = "PROVISIONED"
		wt.ProvisionedCapacitySettings = &WorkbenchCapacity{Throughput{t.Billing.Read, t.Billing.Write}}
	}
	return wt
}

// workbenchIndexes are the table's global indexes (one key attribute
// each).
func workbenchIndexes(t *mapping.Table) []WorkbenchIndex {
	var out []WorkbenchIndex
	for _, ix := range t.Indexes {
		wi := WorkbenchIndex{IndexName: ix.Name, Projection: projection(ix)}
		wi.KeyAttributes.PartitionKey = WorkbenchAttribute{ix.PK[0].Name, ix.PK[0].Type}
		if len(ix.SK) > 0 {
			wi.KeyAttributes.SortKey = &WorkbenchAttribute{ix.SK[0].Name, ix.SK[0].Type}
		}
		out = append(out, wi)
	}
	return out
}

// workbenchFacets are the facets of the access patterns on the table,
// and the names of those on an index (a Workbench facet is of the table).
func workbenchFacets(p *mapping.Plan, perEntity map[string][]string) (facets []WorkbenchFacet, onIndex []string) {
	defs := map[string]*mapping.AccessPatternDef{}
	for _, ad := range p.File.AccessPatterns {
		defs[ad.Name.Value] = ad
	}
	for _, ap := range p.AccessPatterns {
		if ap.Index != nil {
			onIndex = append(onIndex, ap.Name+" (index "+ap.Index.Name+")")
			continue
		}
		facets = append(facets, workbenchFacet(&p.Table, ap, defs[ap.Name], perEntity))
	}
	return facets, onIndex
}

// workbenchFacet is the facet of one access pattern on the table: named
// by its key conditions, with its entities' attributes.
func workbenchFacet(t *mapping.Table, ap *mapping.AccessPattern, def *mapping.AccessPatternDef, perEntity map[string][]string) WorkbenchFacet {
	f := WorkbenchFacet{FacetName: ap.Name, TableData: []json.RawMessage{}, NonKeyAttributes: []string{}, DataAccess: map[string]struct{}{"MySql": {}}}
	var pk []string
	for _, s := range def.PK {
		pk = append(pk, s.Value)
	}
	f.KeyAttributeAlias.PartitionKeyAlias = strings.Join(pk, ", ")
	if c := def.SK; c != nil {
		f.KeyAttributeAlias.SortKeyAlias = sortKeyAlias(c)
	} else if t.SK != nil {
		f.KeyAttributeAlias.SortKeyAlias = t.SK.Name
	}
	seen := map[string]bool{}
	for _, q := range ap.Queries {
		for _, a := range perEntity[q.Entity.Name] {
			if !seen[a] {
				seen[a] = true
				f.NonKeyAttributes = append(f.NonKeyAttributes, a)
			}
		}
	}
	return f
}

// sortKeyAlias names a sort key condition: its exact templates, then its
// operator and values.
func sortKeyAlias(c *mapping.SKCond) string {
	var parts []string
	for _, s := range c.Eq {
		parts = append(parts, s.Value)
	}
	if c.Op != "" {
		var vals []string
		for _, v := range c.Values {
			vals = append(vals, v.Value)
		}
		parts = append(parts, c.Op+" "+strings.Join(vals, " and "))
	}
	return strings.Join(parts, ", ")
}

// workbenchItems are the previewed items of every entity, in key order.
func workbenchItems(t *mapping.Table, res *preview.Result) []json.RawMessage {
	var items []mapping.Item
	for _, e := range res.Entities {
		items = append(items, e.Values...)
	}
	sort.SliceStable(items, func(i, j int) bool {
		return t.KeyString(items[i]) < t.KeyString(items[j])
	})
	var out []json.RawMessage
	for _, it := range items {
		out = append(out, json.RawMessage(av.MarshalItem(it)))
	}
	return out
}

// workbenchDescription is the model's description: the table, the
// mapping, where the samples come from, and the access patterns on an
// index, which have no facet.
func workbenchDescription(p *mapping.Plan, name, mappingFile string, onIndex []string) string {
	desc := fmt.Sprintf("The DynamoDB table %s of the remodel mapping %s", name, mappingFile)
	if p.Schema != nil {
		desc += fmt.Sprintf(", with sample items from the first rows of each entity of the %s database %s", p.Schema.Engine, p.Schema.Database)
	}
	desc += ". Facets are the access patterns on the table, named by their key conditions."
	if len(onIndex) > 0 {
		desc += " Access patterns on an index (see its GSI view): " + strings.Join(onIndex, ", ") + "."
	}
	return desc
}

// entityAttributes lists the non-key attributes of every entity's items
// (all entities', each once), and per entity the names of its own.
func entityAttributes(p *mapping.Plan, res *preview.Result) ([]WorkbenchAttribute, map[string][]string) {
	t := &p.Table
	isKey := map[string]bool{t.PK.Name: true}
	if t.SK != nil {
		isKey[t.SK.Name] = true
	}
	observed := map[string]string{}
	for _, e := range res.Entities {
		for _, it := range e.Values {
			for n, v := range it {
				if _, ok := observed[n]; !ok {
					observed[n] = mapping.AVType(v)
				}
			}
		}
	}
	var out []WorkbenchAttribute
	index := map[string]bool{}
	per := map[string][]string{}
	add := func(entity, name, typ string) {
		if isKey[name] {
			return
		}
		if typ == "" { // the values decide (a JSON column): as preview saw them, else a map
			typ = "M"
			if ot, ok := observed[name]; ok {
				typ = ot
			}
		}
		per[entity] = append(per[entity], name)
		if !index[name] {
			index[name] = true
			out = append(out, WorkbenchAttribute{name, typ})
		}
	}
	for _, e := range p.Entities {
		for _, d := range p.Attributes(e) {
			add(e.Name, d.Name, d.Type)
		}
	}
	return out, per
}
