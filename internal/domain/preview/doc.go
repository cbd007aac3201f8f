// Package preview owns the dry run: it reads the first rows of every entity
// from the source, renders them through the same mapping path as migrate,
// and shows the table definition and the items they become (or why a row
// is rejected), without touching DynamoDB. It reports the rows it renders
// per entity as progress.
package preview
