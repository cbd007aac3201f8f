// Package embedread owns reading an entity's rows with their embedded child
// rows from one source snapshot, for everything that renders items from
// whole rows (migrate, analyze, preview, the bench's pool): the pool of
// extra readers that read child rows while several entities are read at
// once, how many a snapshot needs, and the merged stream of parent and
// child rows (mapping.Entity.StreamEmbedded) over those readers. Each
// embed is read by a reader of its own in the same snapshot as its
// parent's rows.
package embedread
