package mapping

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// Check finds the problems of a parsed mapping that need no source schema:
// the table and its indexes, template syntax, sort keys the table or index
// lacks, attributes that collide with keys, access patterns naming an index
// or an entity that does not exist, and SQL and params syntax. It returns
// them all as an ErrorList, or nil.
//
// Compile finds every one of these too (with the same message at the same
// place) for the entities whose table exists, and in addition everything
// that needs the schema: tables, columns, their types and formatters, and
// the columns that give access-pattern parameters their kind.
//
// A file with postgres: or mysql: blocks is checked as each engine reads
// it (File.ForEngine), and a problem both show is reported once.
func Check(f *File) error {
	if !f.HasEngineSQL() {
		return check(f)
	}
	var all ErrorList
	seen := map[string]bool{}
	for _, engine := range introspect.Engines() {
		var l ErrorList
		if err := check(f.ForEngine(engine)); !errors.As(err, &l) {
			continue
		}
		for _, e := range l {
			if !seen[e.Error()] {
				seen[e.Error()] = true
				all = append(all, e)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	sortErrors(all)
	return all
}

func check(f *File) error {
	c := &compiler{f: f, plan: &Plan{File: f}}
	c.table()
	for _, ed := range f.Entities {
		c.checkEntity(ed)
	}
	for _, ad := range f.AccessPatterns {
		c.checkAccessPattern(ad)
	}
	if len(c.errs) == 0 {
		return nil
	}
	sortErrors(c.errs)
	return c.errs
}

// sortErrors puts errors in file order.
func sortErrors(l ErrorList) {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].Line != l[j].Line {
			return l[i].Line < l[j].Line
		}
		return l[i].Col < l[j].Col
	})
}

// parseTemplate reports a template's syntax error as Compile does.
func (c *compiler) parseTemplate(s Str, path string) *Template {
	t, err := ParseTemplate(s.Value)
	if err != nil {
		c.errorf(s.Pos, path, "%v", err)
		return nil
	}
	return t
}

// checkEntity is the part of entity that needs no table.
func (c *compiler) checkEntity(ed *EntityDef) {
	path := "entities." + ed.Name.Value
	t := &c.plan.Table
	c.parseTemplate(ed.PK, path+".pk")
	switch {
	case t.SK != nil && ed.SK.Line == 0:
		c.errorf(ed.Pos, path, "the table has a sort key %s: give the entity an sk template", t.SK.Name)
	case t.SK == nil && ed.SK.Line != 0:
		c.errorf(ed.SK.Pos, path+".sk", "the table has no sort key")
	case t.SK != nil && ed.SK.Value == "":
		c.errorf(ed.SK.Pos, path+".sk", "must not be empty: DynamoDB refuses an empty sort key")
	case t.SK != nil:
		c.parseTemplate(ed.SK, path+".sk")
	}
	reserved := t.reserved()
	for _, kv := range ed.Rename {
		if why, ok := reserved[kv.Value.Value]; ok {
			c.errorf(kv.Value.Pos, path+".attributes.rename."+kv.Key.Value, "attribute %s collides with %s: rename it", kv.Value.Value, why)
		}
	}
	c.typeKeyConflicts(ed, path)
	keyTypes := t.KeyTypes()
	for _, kv := range ed.Set {
		fpath := path + ".attributes.set." + kv.Key.Value
		if why, ok := reserved[kv.Key.Value]; ok {
			c.errorf(kv.Key.Pos, fpath, "attribute %s collides with %s: rename it", kv.Key.Value, why)
			continue
		}
		if c.parseTemplate(kv.Value, fpath) == nil {
			continue
		}
		if keyTypes[kv.Key.Value] == "B" {
			c.errorf(kv.Value.Pos, fpath, "attribute %s is a binary index key; a template renders text", kv.Key.Value)
		}
	}
}

// checkAccessPattern is the part of accessPattern that needs no schema.
func (c *compiler) checkAccessPattern(ad *AccessPatternDef) {
	path := "access_patterns." + ad.Name.Value
	t := &c.plan.Table
	pkAttrs, skAttrs := []KeyAttr{t.PK}, []KeyAttr(nil)
	if t.SK != nil {
		skAttrs = []KeyAttr{*t.SK}
	}
	target := "the table"
	if ad.Index.Value != "" {
		ix := t.Index(ad.Index.Value)
		if ix == nil {
			names := make([]string, len(t.Indexes))
			for i, x := range t.Indexes {
				names[i] = x.Name
			}
			c.errorf(ad.Index.Pos, path+".index", "the table has no index %q (indexes: %s)", ad.Index.Value, strings.Join(names, ", "))
			return
		}
		pkAttrs, skAttrs, target = ix.PK, ix.SK, "index "+ix.Name
	}
	shapeOK := c.keyShape(ad, path, target, pkAttrs, skAttrs)
	for _, kv := range ad.SQL {
		name, npath, pos := kv.Key.Value, path+".sql."+kv.Key.Value, kv.Key.Pos
		if name == "" {
			name, npath, pos = ad.Entity.Value, path+".entity", ad.Entity.Pos
			if name == "" && len(c.f.Entities) != 1 {
				c.errorf(kv.Value.Pos, path+".sql", "say which entity this SQL returns with entity: (one of %s), or give sql as a map of entity name to SQL", c.entityNames())
				continue
			}
		} else if ad.Entity.Value != "" {
			c.errorf(ad.Entity.Pos, path+".entity", "entity is only for a single sql string; this sql is a map of entity to SQL")
		}
		if name != "" && !c.entityDeclared(name) {
			c.errorf(pos, npath, "no entity %q (entities: %s)", name, c.entityNames())
			continue
		}
		c.checkSQL(kv.Value, path+".sql")
	}
	if ad.Params.Value != "" {
		if q := c.checkSQL(ad.Params, path+".params"); q != nil && len(q.Params()) > 0 {
			c.errorf(ad.Params.Pos, path+".params", "the sampling SQL cannot itself take parameters")
		}
	}
	pkOK := true
	for i, v := range ad.PK {
		if c.parseTemplate(v, pkPath(path, ad, i)) == nil {
			pkOK = false
		}
	}
	if !pkOK || !shapeOK {
		return
	}
	for i, v := range skTemplates(ad.SK) {
		if c.parseTemplate(v, fmt.Sprintf("%s.query.sk[%d]", path, i)) == nil {
			return
		}
	}
}

// checkSQL parses SQL without knowing the engine: it is an error only if
// it parses neither with MySQL's backslash escapes nor without them.
func (c *compiler) checkSQL(s Str, path string) *SQLTemplate {
	q, err := ParseSQL(s.Value, false)
	if err != nil {
		if q2, err2 := ParseSQL(s.Value, true); err2 == nil {
			return q2
		}
		c.errorf(s.Pos, path, "%v", err)
		return nil
	}
	return q
}
