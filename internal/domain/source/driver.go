package source

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/remodel-dev/remodel/introspect"
)

// Driver is one engine's way in: the package of each engine (source/postgres,
// source/mysql) has one, and package source/engines registers them all.
// The shared code here opens a DSN through the driver that owns it and
// never names an engine itself.
type Driver interface {
	// Engine is the engine the driver reads.
	Engine() introspect.Engine
	// Forms names the DSN forms the driver owns, for the message that no
	// driver owns a DSN ("postgres://").
	Forms() []string
	// Owns reports whether dsn is in one of the driver's forms (by its
	// scheme or its shape), whether or not it parses.
	Owns(dsn string) bool
	// Open connects to the database dsn names.
	Open(ctx context.Context, dsn string, o Options) (Source, error)
	// Identity is the driver's identity of dsn (see Identity).
	Identity(dsn string) (string, error)
}

// registry is the drivers Register was given, in its order.
var registry struct {
	sync.RWMutex
	drivers []Driver
}

// Register makes the drivers ds available to Open, OpenWith and Identity,
// asked in the order they are registered. A driver registered twice for
// one engine panics, as database/sql's Register does.
func Register(ds ...Driver) {
	registry.Lock()
	defer registry.Unlock()
	for _, d := range ds {
		for _, had := range registry.drivers {
			if had.Engine() == d.Engine() {
				panic(fmt.Sprintf("source: Register called twice for engine %s", d.Engine()))
			}
		}
		registry.drivers = append(registry.drivers, d)
	}
}

// driverOf is the registered driver that owns dsn.
func driverOf(dsn string) (Driver, error) {
	registry.RLock()
	defer registry.RUnlock()
	forms := make([]string, 0, len(registry.drivers))
	for _, d := range registry.drivers {
		if d.Owns(dsn) {
			return d, nil
		}
		forms = append(forms, d.Forms()...)
	}
	// Only a URL is shown: where the password of any other string is cannot
	// be known ("host=h password=pw", "scott/tiger@orcl", a password pasted
	// in place of the DSN).
	shown := "the DSN"
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.Host != "" {
		shown = Redact(dsn)
	}
	if len(forms) == 0 {
		return nil, fmt.Errorf("source: no engine is registered to open %s (import package source/engines)", shown)
	}
	return nil, fmt.Errorf("source: %s is not a %s DSN", shown, orList(forms))
}

// orList is "a", "a or b", "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// Open connects to the database a DSN names, with the default Options.
func Open(ctx context.Context, dsn string) (Source, error) {
	return OpenWith(ctx, dsn, Options{})
}

// OpenWith connects to the database a DSN names, through the registered
// driver that owns it.
func OpenWith(ctx context.Context, dsn string, o Options) (Source, error) {
	d, err := driverOf(dsn)
	if err != nil {
		return nil, err
	}
	return d.Open(ctx, dsn, o)
}

// Identity names the database a DSN points at, without its password or
// connection options: postgres://user@host:port/db or
// mysql://user@host:port/db. Two DSNs spelled differently for the same
// database (a URL and the go-sql-driver form, options added) have the same
// identity. migrate's checkpoint records it, so that a resumed run reads
// the database the interrupted one read.
func Identity(dsn string) (string, error) {
	d, err := driverOf(dsn)
	if err != nil {
		return "", err
	}
	return d.Identity(dsn)
}
