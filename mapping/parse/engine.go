package parse

import (
	"go.yaml.in/yaml/v3"

	"github.com/remodel-dev/remodel/introspect"
)

// EngineSQL is a postgres: or mysql: block of an entity or an access
// pattern: the SQL fields that replace the item's own on that engine
// (MariaDB counts as mysql). An entity's block holds query and where, a
// pattern's sql and params; a field the block leaves out keeps the item's
// own. The block of the other engine is parsed and checked, then ignored.
type EngineSQL struct {
	Query  Str  // an entity's query
	Where  Str  // an entity's where
	SQL    []KV // a pattern's sql, as AccessPatternDef.SQL; nil when absent
	Params Str  // a pattern's params
	Pos
}

// entityEngine reads an entity's postgres: or mysql: block.
func (p *parser) entityEngine(n *yaml.Node, path string) *EngineSQL {
	b := &EngineSQL{Pos: pos(n)}
	p.fields(n, path, map[string]func(*yaml.Node, string){
		"query": func(v *yaml.Node, path string) { b.Query = p.nonEmpty(v, path) },
		"where": func(v *yaml.Node, path string) { b.Where = p.nonEmpty(v, path) },
	})
	return b
}

// patternEngine reads an access pattern's postgres: or mysql: block.
func (p *parser) patternEngine(n *yaml.Node, path string) *EngineSQL {
	b := &EngineSQL{Pos: pos(n)}
	p.fields(n, path, map[string]func(*yaml.Node, string){
		"sql":    func(v *yaml.Node, path string) { b.SQL = p.sql(v, path) },
		"params": func(v *yaml.Node, path string) { b.Params = p.nonEmpty(v, path) },
	})
	return b
}

// sql reads a pattern's sql: one SQL string (an entry with an empty key),
// or a map of entity name to SQL.
func (p *parser) sql(v *yaml.Node, path string) []KV {
	if v.Kind == yaml.ScalarNode {
		return []KV{{Value: p.nonEmpty(v, path)}}
	}
	out := p.strMap(v, path)
	if v.Kind == yaml.MappingNode && len(out) == 0 {
		p.errorf(v, path, "must name at least one entity")
	}
	if out == nil {
		out = []KV{} // present, though wrong: reported
	}
	return out
}

// engineQueries checks an entity's engine blocks against the entity: a
// block's query replaces a query, never a from.
func (p *parser) engineQueries(e *EntityDef, path string) {
	for _, b := range []struct {
		name string
		sql  *EngineSQL
	}{{"postgres", e.Postgres}, {"mysql", e.MySQL}} {
		if b.sql == nil || b.sql.Query.Line == 0 || e.From.Line == 0 {
			continue
		}
		p.errs = append(p.errs, &Error{File: p.file, Line: b.sql.Query.Line, Col: b.sql.Query.Col, Path: path + "." + b.name + ".query",
			Msg: "the entity reads from: " + e.From.Value + "; a " + b.name + " query replaces the entity's query, so give the entity a query instead of from"})
	}
}

// engineBlock is the block for engine of an item whose blocks are pg and
// my, or nil.
func engineBlock(pg, my *EngineSQL, engine introspect.Engine) *EngineSQL {
	switch engine {
	case introspect.Postgres:
		return pg
	case introspect.MySQL:
		return my
	}
	return nil
}

// HasEngineSQL reports whether any entity or access pattern of f has a
// postgres: or mysql: block.
func (f *File) HasEngineSQL() bool {
	for _, e := range f.Entities {
		if e.Postgres != nil || e.MySQL != nil {
			return true
		}
	}
	for _, ap := range f.AccessPatterns {
		if ap.Postgres != nil || ap.MySQL != nil {
			return true
		}
	}
	return false
}

// ForEngine is f as the given engine reads it: each entity's and access
// pattern's block for that engine (postgres: or mysql:) replaces the
// item's SQL fields it gives, and no item keeps a block, so that the
// result is its own ForEngine for any engine. f is left as it is; the
// items without a block are shared with it.
func (f *File) ForEngine(engine introspect.Engine) *File {
	if !f.HasEngineSQL() {
		return f
	}
	out := *f
	out.Entities = make([]*EntityDef, len(f.Entities))
	for i, e := range f.Entities {
		if e.Postgres == nil && e.MySQL == nil {
			out.Entities[i] = e
			continue
		}
		c := *e
		if b := engineBlock(e.Postgres, e.MySQL, engine); b != nil {
			if b.Query.Line != 0 {
				c.Query = b.Query
			}
			if b.Where.Line != 0 {
				c.Where = b.Where
			}
		}
		c.Postgres, c.MySQL = nil, nil
		out.Entities[i] = &c
	}
	out.AccessPatterns = make([]*AccessPatternDef, len(f.AccessPatterns))
	for i, ap := range f.AccessPatterns {
		if ap.Postgres == nil && ap.MySQL == nil {
			out.AccessPatterns[i] = ap
			continue
		}
		c := *ap
		if b := engineBlock(ap.Postgres, ap.MySQL, engine); b != nil {
			if b.SQL != nil {
				c.SQL = b.SQL
			}
			if b.Params.Line != 0 {
				c.Params = b.Params
			}
		}
		c.Postgres, c.MySQL = nil, nil
		out.AccessPatterns[i] = &c
	}
	return &out
}
