package parse

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The codes of the design warnings (package warn's Warning.Code): stable
// names that an acknowledgement (acknowledge: in the mapping file) refers
// to.
const (
	WarnBeginsWithPlaceholder = "begins-with-placeholder" // a begins_with prefix ending in a placeholder
	WarnQuotedParameter       = "quoted-parameter"        // a {name} inside quotes in a pattern's SQL
	WarnConstantPartitionKey  = "constant-partition-key"  // an index partition key that is a constant
	WarnFewPartitions         = "few-partitions"          // an index partition key of booleans and enums
	WarnKeyNotUnique          = "key-not-unique"          // key templates that hold no unique key
	WarnDanglingIndexKey      = "dangling-index-key"      // one key attribute of an index written without the others
	WarnSparseWhen            = "sparse-when"             // an index key attribute written under a when condition
	WarnSparseNullable        = "sparse-nullable"         // an index key attribute from a nullable column
	WarnUnmappedTable         = "unmapped-table"          // a table no entity reads
	WarnUnwrittenProjection   = "unwritten-projection"    // an attribute an INCLUDE projection lists that no entity writes
	WarnStaleAcknowledgement  = "stale-acknowledgement"   // an acknowledgement that matches no warning
)

// WarningCodes are the codes an acknowledgement may name, in the order
// docs/mapping.md lists them. A stale acknowledgement cannot itself be
// acknowledged: remove it instead.
var WarningCodes = []string{
	WarnBeginsWithPlaceholder, WarnQuotedParameter, WarnConstantPartitionKey, WarnFewPartitions,
	WarnKeyNotUnique, WarnDanglingIndexKey, WarnSparseWhen, WarnSparseNullable, WarnUnmappedTable, WarnUnwrittenProjection,
}

// AckDef is one entry of acknowledge: a warning the design intends, with
// the reason. It matches the warnings of its code about every one of the
// entity, index, access pattern and source table it names (at least one).
type AckDef struct {
	Warning Str // a code of WarningCodes
	Entity  Str
	Index   Str
	Pattern Str
	Table   Str // a source table, as unmapped-table names it (name or schema.name)
	Reason  Str
	Pos
}

// acknowledgements reads acknowledge: a list of {warning, entity, index,
// pattern, table, reason}.
func (p *parser) acknowledgements(n *yaml.Node, path string) []*AckDef {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "expected a list of acknowledgements ({warning: CODE, entity: NAME, reason: ...}), got %s", describe(n))
		return nil
	}
	var out []*AckDef
	for i, c := range n.Content {
		c, fp := resolve(c), fmt.Sprintf("%s[%d]", path, i)
		a := &AckDef{Pos: pos(c)}
		var sawWarning, sawReason bool
		ok := p.fields(c, fp, map[string]func(*yaml.Node, string){
			"warning": func(v *yaml.Node, path string) {
				sawWarning = true
				a.Warning = p.nonEmpty(v, path)
				if a.Warning.Value != "" && !slices.Contains(WarningCodes, a.Warning.Value) {
					p.errorf(v, path, "unknown warning code %q (known codes: %s)", a.Warning.Value, strings.Join(WarningCodes, ", "))
				}
			},
			"entity":  func(v *yaml.Node, path string) { a.Entity = p.nonEmpty(v, path) },
			"index":   func(v *yaml.Node, path string) { a.Index = p.nonEmpty(v, path) },
			"pattern": func(v *yaml.Node, path string) { a.Pattern = p.nonEmpty(v, path) },
			"table":   func(v *yaml.Node, path string) { a.Table = p.nonEmpty(v, path) },
			"reason": func(v *yaml.Node, path string) {
				sawReason = true
				a.Reason = p.nonEmpty(v, path)
				if a.Reason.Value != "" && strings.TrimSpace(a.Reason.Value) == "" {
					p.errorf(v, path, "must not be blank: say why the design intends the warning")
				}
			},
		})
		if !ok {
			continue
		}
		if !sawWarning {
			p.errorf(c, fp, "missing required field \"warning\"")
		}
		if !sawReason {
			p.errorf(c, fp, "missing required field \"reason\" (why the design intends the warning)")
		}
		if a.Entity.Line == 0 && a.Index.Line == 0 && a.Pattern.Line == 0 && a.Table.Line == 0 {
			p.errorf(c, fp, "name what the warning is about: entity, index, pattern or table (at least one)")
		}
		out = append(out, a)
	}
	return out
}
