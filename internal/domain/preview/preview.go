package preview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/embedread"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// ResultVersion is the version of the Result's JSON shape; it changes only
// when a field changes meaning or goes (new fields are added freely).
const ResultVersion = 1

// Result is the preview of a plan on real rows.
type Result struct {
	Version  int      `json:"version"` // ResultVersion
	Table    TableDef `json:"table"`
	Entities []Entity `json:"entities"`
}

// TableDef is the table the mapping would create.
type TableDef struct {
	Name       string     `json:"name"`
	PK         string     `json:"pk"`
	SK         string     `json:"sk,omitempty"`
	EntityAttr string     `json:"entity_attribute"`
	Indexes    []IndexDef `json:"indexes,omitempty"`
}

// IndexDef is one secondary index. The attributes of a multi-attribute
// key are listed in order, separated by ", ".
type IndexDef struct {
	Name  string `json:"name"`
	PK    string `json:"pk"`
	SK    string `json:"sk,omitempty"`
	Local bool   `json:"local,omitempty"`
	// Projection is ALL, KEYS_ONLY or INCLUDE, with Include's attributes.
	Projection string   `json:"projection"`
	Include    []string `json:"include,omitempty"`
}

// Entity is one entity's key patterns and its first rows as items.
type Entity struct {
	Name     string            `json:"name"`
	From     string            `json:"from"`            // schema.table, or "query"
	Query    string            `json:"query,omitempty"` // the SELECT of an entity from a query
	PK       string            `json:"pk"`
	SK       string            `json:"sk,omitempty"`
	Items    []json.RawMessage `json:"items"` // DynamoDB JSON, as the AWS CLI shows items
	Rejected []string          `json:"rejected,omitempty"`

	// Values are the same items as attribute values, in the same order,
	// for renderings of the preview (the modeling document, exports).
	Values []mapping.Item `json:"-"`
}

// Table is the definition of the mapping's table.
func Table(t *mapping.Table) TableDef {
	td := TableDef{Name: t.Name, PK: t.PK.Name, EntityAttr: t.EntityAttr}
	if t.SK != nil {
		td.SK = t.SK.Name
	}
	for _, ix := range t.Indexes {
		pr := ix.DynamoDBProjection()
		td.Indexes = append(td.Indexes, IndexDef{Name: ix.Name, PK: mapping.KeyNames(ix.PK), SK: mapping.KeyNames(ix.SK), Local: ix.Local,
			Projection: string(pr.ProjectionType), Include: pr.NonKeyAttributes})
	}
	return td
}

// Run renders the first rows rows of each entity (all entities when names
// is empty). prog (nil: none) gets a "render" phase: per entity, the rows
// rendered (or rejected) of the rows it can have (renderTotal).
func Run(ctx context.Context, p *mapping.Plan, src source.Source, rows int, names []string, prog *progress.Tracker) (*Result, error) {
	res := &Result{Version: ResultVersion, Table: Table(&p.Table)}
	want := map[string]bool{}
	for _, n := range names {
		if p.Entity(n) == nil {
			return nil, fmt.Errorf("preview: the mapping has no entity %q", n)
		}
		want[n] = true
	}
	snap, err := src.Snapshot(ctx, 1+p.MaxEmbeds())
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	r, kr := snap.Readers()[0], snap.Readers()[1:] // kr read embedded rows
	var shown []*mapping.Entity
	for _, e := range p.Entities {
		if len(want) == 0 || want[e.Name] {
			shown = append(shown, e)
		}
	}
	phase := prog.Phase("render", "rows", renderTasks(shown, rows))
	complete := false
	defer func() { phase.End(complete) }()
	if res.Entities, err = renderFirst(ctx, r, kr, shown, rows, phase, nil); err != nil {
		return nil, err
	}
	complete = true
	return res, nil
}

// renderFirst renders the first rows rows of each entity, counting them in
// phase's counters, one per entity. keep (nil: every item) chooses the
// items shown; without it a rejected row is listed with its key and
// reason, with it the row is passed over (it is in no partition).
func renderFirst(ctx context.Context, r source.Reader, kr []source.Reader, ents []*mapping.Entity, rows int, phase *progress.Phase, keep func(mapping.Item) bool) ([]Entity, error) {
	var out []Entity
	for n, e := range ents {
		pk, sk := e.KeyTemplates()
		pe := Entity{Name: e.Name, From: e.Table.QualifiedName(), PK: pk, SK: sk, Items: []json.RawMessage{}}
		if e.Table.Query != "" {
			pe.From, pe.Query = "query", e.Table.Query
		}
		err := embedread.StreamFirst(ctx, r, kr, e, rows, func(row []any, kids [][][]any, dup *mapping.RowError) error {
			defer phase.Counter(n).Add(1)
			item, _, err := e.RenderRead(row, kids, dup)
			if err != nil {
				var re *mapping.RowError
				if !errors.As(err, &re) {
					return err
				}
				if keep == nil {
					pe.Rejected = append(pe.Rejected, fmt.Sprintf("row %s: %s", re.Key, re.Reason))
				}
				return nil
			}
			if keep == nil || keep(item) {
				pe.Items = append(pe.Items, av.MarshalItem(item))
				pe.Values = append(pe.Values, item)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("preview: reading entity %s: %w", e.Name, err)
		}
		phase.Counter(n).Finish()
		out = append(out, pe)
	}
	return out, nil
}

// renderTasks are the progress tasks of the entities: each reads at most
// rows rows, fewer when the source's statistics say the table has fewer
// (exact when the count is exact and the entity has no where).
func renderTasks(ents []*mapping.Entity, rows int) []progress.Task {
	tasks := make([]progress.Task, len(ents))
	for i, e := range ents {
		tasks[i] = progress.Task{Name: e.Name, Total: int64(rows)}
		if n, exact, known := e.Table.Size.Rows(); known && n <= int64(rows) {
			tasks[i].Total, tasks[i].Exact = n, exact && e.Where == ""
		}
	}
	return tasks
}
