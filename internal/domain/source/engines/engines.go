// Package engines registers every engine remodel reads with package
// source: importing it (for its effect, as database/sql's drivers are
// imported) makes source.Open, source.OpenWith and source.Identity know
// PostgreSQL and MySQL. It is the one place that lists the engines; a new
// engine adds its folder beside source/postgres and source/mysql and a line
// here.
package engines

import (
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/mysql"
	"github.com/remodel-dev/remodel/internal/domain/source/postgres"
)

func init() {
	source.Register(postgres.Driver{}, mysql.Driver{})
}
