package mapping

import (
	"time"

	"github.com/remodel-dev/remodel/mapping/parse"
)

// The parse stage is package parse: the mapping file as written, with
// positions. Its names stay here too, as aliases and thin wrappers, so
// that the callers of mapping need not change.

// File is parse.File: a parsed mapping file.
type File = parse.File

// TableDef is parse.TableDef: the table: section.
type TableDef = parse.TableDef

// Str is parse.Str: a string with its position.
type Str = parse.Str

// AttrDef is parse.AttrDef: a key attribute and its type.
type AttrDef = parse.AttrDef

// Billing is parse.Billing: on-demand or provisioned.
type Billing = parse.Billing

// IndexDef is parse.IndexDef: one secondary index.
type IndexDef = parse.IndexDef

// ProjectionDef is parse.ProjectionDef: an index's projection:.
type ProjectionDef = parse.ProjectionDef

// EntityDef is parse.EntityDef: one entity.
type EntityDef = parse.EntityDef

// SetDef is parse.SetDef: one attribute of attributes.set.
type SetDef = parse.SetDef

// TTLDef is parse.TTLDef: an entity's ttl:.
type TTLDef = parse.TTLDef

// KV is parse.KV: one key/value pair of a map, in file order.
type KV = parse.KV

// AccessPatternDef is parse.AccessPatternDef: one access pattern.
type AccessPatternDef = parse.AccessPatternDef

// SKCond is parse.SKCond: a sort key condition.
type SKCond = parse.SKCond

// AckDef is parse.AckDef: one entry of acknowledge:.
type AckDef = parse.AckDef

// EmbedDef is parse.EmbedDef: one attribute of an entity's embed.
type EmbedDef = parse.EmbedDef

// OrderDef is parse.OrderDef: one column of an embed's order_by.
type OrderDef = parse.OrderDef

// OrderCol is parse.OrderCol: a column of an order and its direction.
type OrderCol = parse.OrderCol

// EngineSQL is parse.EngineSQL: a postgres: or mysql: block.
type EngineSQL = parse.EngineSQL

// MarkersDef is parse.MarkersDef: table.markers as written.
type MarkersDef = parse.MarkersDef

// Error is parse.Error: a problem located in the mapping file.
type Error = parse.Error

// ErrorList is parse.ErrorList: every problem found in one mapping file.
type ErrorList = parse.ErrorList

// Pos is parse.Pos: a position in the mapping file.
type Pos = parse.Pos

// Projection types (parse.ProjectAll, ...).
const (
	ProjectAll      = parse.ProjectAll      // every attribute (the default)
	ProjectKeysOnly = parse.ProjectKeysOnly // the keys only
	ProjectInclude  = parse.ProjectInclude  // the keys and the attributes listed
)

// MaxKeyAttrs is parse.MaxKeyAttrs: the attributes of a multi-attribute
// key of a global index.
const MaxKeyAttrs = parse.MaxKeyAttrs

// The marker sets table.markers lists (parse.MarkersElectroDB, ...).
const (
	MarkersElectroDB = parse.MarkersElectroDB
	MarkersOneTable  = parse.MarkersOneTable
	MarkersVersion   = parse.MarkersVersion
)

// The codes of the design warnings (parse.WarnBeginsWithPlaceholder, ...).
const (
	WarnBeginsWithPlaceholder = parse.WarnBeginsWithPlaceholder // a begins_with prefix ending in a placeholder
	WarnQuotedParameter       = parse.WarnQuotedParameter       // a {name} inside quotes in a pattern's SQL
	WarnConstantPartitionKey  = parse.WarnConstantPartitionKey  // an index partition key that is a constant
	WarnFewPartitions         = parse.WarnFewPartitions         // an index partition key of booleans and enums
	WarnKeyNotUnique          = parse.WarnKeyNotUnique          // key templates that hold no unique key
	WarnDanglingIndexKey      = parse.WarnDanglingIndexKey      // one key attribute of an index written without the others
	WarnSparseWhen            = parse.WarnSparseWhen            // an index key attribute written under a when condition
	WarnSparseNullable        = parse.WarnSparseNullable        // an index key attribute from a nullable column
	WarnUnmappedTable         = parse.WarnUnmappedTable         // a table no entity reads
	WarnUnwrittenProjection   = parse.WarnUnwrittenProjection   // an attribute an INCLUDE projection lists that no entity writes
	WarnStaleAcknowledgement  = parse.WarnStaleAcknowledgement  // an acknowledgement that matches no warning
)

// WarningCodes is parse.WarningCodes: the codes an acknowledgement may name.
var WarningCodes = parse.WarningCodes

// ParseFile is parse.ParseFile: it reads and parses a mapping file.
func ParseFile(path string) (*File, error) { return parse.ParseFile(path) }

// Parse is parse.Parse: it parses a mapping file strictly.
func Parse(name string, data []byte) (*File, error) { return parse.Parse(name, data) }

// ParseOffset is parse.ParseOffset: it reads a duration such as 30d or 1d12h.
func ParseOffset(s string) (time.Duration, error) { return parse.ParseOffset(s) }

// ParseOrder is parse.ParseOrder: it reads one order_by entry.
func ParseOrder(s string) (OrderCol, error) { return parse.ParseOrder(s) }
