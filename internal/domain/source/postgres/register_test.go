package postgres

import "github.com/remodel-dev/remodel/internal/domain/source"

// The tests open their sources through source.Open, as the program does
// once package source/engines registered the engines.
func init() { source.Register(Driver{}) }
