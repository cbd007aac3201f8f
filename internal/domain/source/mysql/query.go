package mysql

import (
	"context"
	"errors"

	"github.com/go-sql-driver/mysql"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	myinspect "github.com/remodel-dev/remodel/introspect/mysql"
)

// QueryColumns has MySQL run q as a derived table with LIMIT 0 and
// describes its result columns from the result's metadata
// (introspect/mysql).
func (s *mySource) QueryColumns(ctx context.Context, q string) ([]*introspect.Column, error) {
	var cols []*introspect.Column
	err := s.step(ctx, "describing a query", func(ctx context.Context) (err error) {
		cols, err = myinspect.New(s.db).QueryColumns(ctx, q)
		return err
	})
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return nil, &source.SQLError{Err: me}
	}
	if err != nil {
		return nil, source.Worded("describing a query", err)
	}
	return cols, nil
}
