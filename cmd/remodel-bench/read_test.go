package main

import (
	"context"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
)

// example loads the personalization example into a fresh database of the
// engine and returns its DSN, the open source and the compiled plan.
func example(t *testing.T, engine string) (string, source.Source, *mapping.Plan) {
	t.Helper()
	return exampleOf(t, engine, "personalization")
}

// exampleOf is example for the example in examples/dir.
func exampleOf(t *testing.T, engine, dir string) (string, source.Source, *mapping.Plan) {
	t.Helper()
	var dsn string
	if engine == "postgres" {
		dsn = testenv.Postgres(t)
	} else {
		dsn = testenv.MySQL(t)
	}
	testenv.LoadExample(t, engine, dsn, "../../examples/"+dir)
	ctx := context.Background()
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	schema, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := mapping.ParseFile("../../examples/" + dir + "/mapping.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := mapping.Compile(f, schema)
	if err != nil {
		t.Fatal(err)
	}
	return dsn, src, plan
}

// TestRawReadCountsEveryRow: the raw read gets exactly the rows the source
// counts, on both engines, with one reader and with more readers than
// entities.
func TestRawReadCountsEveryRow(t *testing.T) {
	for _, engine := range []string{"postgres", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			dsn, src, plan := example(t, engine)
			ctx := context.Background()
			counts, total, err := countRows(ctx, src, plan)
			if err != nil {
				t.Fatal(err)
			}
			if total < 6000 || counts["service"] != 6 {
				t.Fatalf("counts %v (total %d): not the personalization example", counts, total)
			}
			for _, readers := range []int{1, 8} {
				rows, err := rawRead(ctx, src.Engine(), dsn, plan.Entities, readers)
				if err != nil {
					t.Fatal(err)
				}
				if rows != total {
					t.Errorf("%d readers: read %d rows, the source counts %d", readers, rows, total)
				}
			}
		})
	}
}

func TestMySQLConfig(t *testing.T) {
	for _, c := range []struct{ dsn, user, pass, addr, db string }{
		{"mysql://root@127.0.0.1/shop", "root", "", "127.0.0.1:3306", "shop"},
		{"mysql://u:p%40ss@db.example:3307/shop?timeout=5s", "u", "p@ss", "db.example:3307", "shop"},
		{"u:pw@tcp(h:3306)/shop", "u", "pw", "h:3306", "shop"},
	} {
		cfg, err := mysqlConfig(c.dsn)
		if err != nil {
			t.Errorf("%s: %v", c.dsn, err)
			continue
		}
		if cfg.User != c.user || cfg.Passwd != c.pass || cfg.Addr != c.addr || cfg.DBName != c.db || cfg.ParseTime || cfg.Params["time_zone"] != "'+00:00'" {
			t.Errorf("%s: %+v", c.dsn, cfg)
		}
	}
	for _, bad := range []string{"mysql://", "not a dsn"} {
		if _, err := mysqlConfig(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
