// Package keyproof proves, from the mapping and the schema alone, that no
// two source rows of one run can render the same table key (Prove), so
// that migrate can skip its key collision check; where the proof's only
// gaps are text columns that may hold the separator after them, it names
// those conditions on the data (DataCheck), and CheckData completes the
// proof with what the database answers.
//
// It reads the compiled mapping.Plan only through mapping's read-only
// views (Entity.KeyParts, Entity.RowKey, Entity.KeyTemplates, the
// plan's Table and Schema): validate and migrate call it after
// mapping.Compile.
package keyproof
