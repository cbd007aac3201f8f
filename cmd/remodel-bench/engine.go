package main

import (
	"context"

	"github.com/remodel-dev/remodel/introspect"
)

// benchEngine is what the bench does its own way on each engine, beside
// what remodel's source does: its connections through the engine's driver
// (the raw read, set-up statements, the follow workload) and the few
// statements it writes itself. One implementation per engine, in
// engine_ENGINE.go.
type benchEngine interface {
	// readDriver names the raw read's driver and protocol.
	readDriver() string
	// rawReader prepares the raw read's connections: open opens one
	// scanner, done closes what they share.
	rawReader(dsn string) (open func(context.Context) (scanner, error), done func(), err error)
	// openSQL opens a connection for set-up statements.
	openSQL(ctx context.Context, dsn string) (*execer, error)
	// connect opens one workload connection (ctx bounds the connecting).
	connect(ctx context.Context, dsn string) (sqlConn, error)
	// fillCapacity is the statement that fills a capacity set's table t:
	// ids 1 to s.rows, grp HOT for the first s.hot and G<id> for the
	// others, a 100-byte payload.
	fillCapacity(t string, s capacitySet) string
	// insertIgnore inserts values ("(cols) VALUES (...)") into table,
	// or nothing when a row with its key is there.
	insertIgnore(table, values string) string
	// timestamp6 is the type of a timestamp with microseconds.
	timestamp6() string
	// fullRows is the statement that makes the change stream carry the
	// table's rows whole before a change ("": the engine's always does).
	fullRows(table string) string
}

// benchEngines are the engines' benchEngine, by engine.
var benchEngines = map[introspect.Engine]benchEngine{
	introspect.Postgres: pgBench{},
	introspect.MySQL:    myBench{},
}

// benchEngineOf is e's benchEngine; an engine the bench does not know gets
// PostgreSQL's, as remodel's dialects do.
func benchEngineOf(e introspect.Engine) benchEngine {
	if be, ok := benchEngines[e]; ok {
		return be
	}
	return pgBench{}
}
