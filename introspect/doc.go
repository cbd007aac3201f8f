// Package introspect owns the engine-neutral model of a source database's
// schema (its ERD): tables, columns with their declared type, a canonical
// Kind and nullability, primary keys, foreign keys and row estimates.
//
// One inspector per engine lives in a sub-package with the same file names
// (introspect/postgres, introspect/mysql). Nothing in this package talks to a
// database; the model is what every later stage (mapping, migrate, verify,
// preview) reasons about.
package introspect
