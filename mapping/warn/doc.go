// Package warn finds the design warnings of a valid mapping file: risks
// that compile, but may not do what was meant (a begins_with prefix ending
// in a placeholder, an index partition key of few values, key templates
// that hold no unique key, sparse index keys, unmapped tables, projections
// nothing writes). Each has a stable code (mapping.WarningCodes) that an
// entry of the file's acknowledge: list matches, with the reason the design
// intends it; an entry that matches nothing is itself a warning.
//
// It reads the parsed file (and, given one, the schema), never the
// compiled plan: validate calls it beside mapping.Compile.
package warn
