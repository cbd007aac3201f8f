package mysql

import (
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/postgres"
)

// The tests open their sources through source.Open, as the program does
// once package source/engines registered the engines; one opens a
// PostgreSQL source too, to see that what is MySQL's does nothing there.
func init() { source.Register(Driver{}, postgres.Driver{}) }
