package migrate_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// fast is a retry policy for tests: quick retries, a generous deadline.
var fast = migrate.Backoff{Base: time.Millisecond, Cap: 20 * time.Millisecond, Deadline: 30 * time.Second}

const example = "../examples/personalization"

// newDB returns a DynamoDB client for endpoint with DynamoDB Local's
// credentials.
func newDB(t testing.TB, endpoint string, opts ...func(*config.LoadOptions) error) *dynamo.Client {
	t.Helper()
	opts = append([]func(*config.LoadOptions) error{
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")),
		config.WithRegion("us-east-1"),
	}, opts...)
	db, err := dynamo.Open(context.Background(), endpoint, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// tableName returns a unique table name and deletes the table, if it
// exists, when the test ends.
func tableName(t testing.TB, db dynamo.API) string {
	t.Helper()
	name := testenv.UniqueName("remodel_migrate")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		var nf *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &nf) {
			t.Errorf("deleting table %s: %v", name, err)
		}
	})
	return name
}

// fixture is a source database with a compiled mapping.
type fixture struct {
	plan  *mapping.Plan
	src   source.Source
	rows  map[string]int64 // source rows per entity (with its where)
	total int64
}

type engine = struct {
	Name  string
	Fresh func(testing.TB) string
	Exec  func(testing.TB, string, string)
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// personalization loads the personalization example into a fresh database.
func personalization(t testing.TB, eng engine) *fixture {
	t.Helper()
	dsn := eng.Fresh(t)
	eng.Exec(t, dsn, readFile(t, filepath.Join(example, "schema."+eng.Name+".sql")))
	eng.Exec(t, dsn, readFile(t, filepath.Join(example, "data.sql")))
	return open(t, dsn, filepath.Join(example, "mapping.yaml"), readFile(t, filepath.Join(example, "mapping.yaml")))
}

// load runs a schema script (the same for both engines) into a fresh
// database and compiles a mapping against it.
func load(t testing.TB, eng engine, script, mappingYAML string) *fixture {
	t.Helper()
	dsn := eng.Fresh(t)
	eng.Exec(t, dsn, script)
	return open(t, dsn, "mapping.yaml", mappingYAML)
}

func open(t testing.TB, dsn, name, mappingYAML string) *fixture {
	t.Helper()
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
	f, err := mapping.Parse(name, []byte(mappingYAML))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := mapping.Compile(f, schema)
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{plan: plan, src: src, rows: map[string]int64{}}
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	for _, e := range plan.Entities {
		n, err := snap.Readers()[0].Count(ctx, e.Table, e.Where)
		if err != nil {
			t.Fatal(err)
		}
		fx.rows[e.Name] = n
		fx.total += n
	}
	return fx
}

// options are the migrate options of a test run.
func (fx *fixture) options(db dynamo.API, table string) migrate.Options {
	return migrate.Options{Plan: fx.plan, Source: fx.src, DB: db, Table: table, Backoff: fast, Writers: 4}
}

// scan counts the table's items per entity attribute (every page).
func scan(t testing.TB, db dynamo.API, table string) (total int64, perEntity map[string]int64) {
	t.Helper()
	perEntity = map[string]int64{}
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{
		TableName:                aws.String(table),
		ProjectionExpression:     aws.String("#t"),
		ExpressionAttributeNames: map[string]string{"#t": "_type"},
	})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("scanning %s: %v", table, err)
		}
		for _, it := range out.Items {
			name := ""
			if s, ok := it["_type"].(*types.AttributeValueMemberS); ok {
				name = s.Value
			}
			perEntity[name]++
			total++
		}
	}
	return total, perEntity
}

// checkLanded says whether every source row is in the report and in the
// table, entity by entity.
func checkLanded(t testing.TB, fx *fixture, rep *migrate.Report, db dynamo.API, table string) {
	t.Helper()
	if rep.RowsRead != fx.total || rep.ItemsWritten != fx.total || rep.Rejected != 0 {
		t.Errorf("report: %d rows read, %d items written, %d rejected; the source has %d rows",
			rep.RowsRead, rep.ItemsWritten, rep.Rejected, fx.total)
	}
	if len(rep.Entities) != len(fx.plan.Entities) {
		t.Errorf("report has %d entities, the plan %d", len(rep.Entities), len(fx.plan.Entities))
	}
	for _, e := range rep.Entities {
		if want := fx.rows[e.Name]; e.Rows != want || e.Items != want || e.Rejected != 0 {
			t.Errorf("report, entity %s: %d rows, %d items, %d rejected; the source has %d rows", e.Name, e.Rows, e.Items, e.Rejected, want)
		}
	}
	total, per := scan(t, db, table)
	if total != fx.total {
		t.Errorf("the table holds %d items, the source has %d rows", total, fx.total)
	}
	for name, want := range fx.rows {
		if per[name] != want {
			t.Errorf("the table holds %d %s items, the source has %d rows", per[name], name, want)
		}
	}
}

// proxy starts a fault proxy in front of endpoint; the returned client
// talks through it.
func proxy(t testing.TB, endpoint string, seed uint64, rules ...faultproxy.Rule) (*faultproxy.Proxy, *httptest.Server, *dynamo.Client) {
	t.Helper()
	p, err := faultproxy.New(endpoint, seed, rules...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		p.Close()
	})
	return p, srv, newDB(t, srv.URL)
}

// rejectLines reads a rejected-rows file.
func rejectLines(t testing.TB, path string) []migrate.Rejection {
	t.Helper()
	var out []migrate.Rejection
	for i, line := range strings.Split(strings.TrimSuffix(readFile(t, path), "\n"), "\n") {
		var r migrate.Rejection
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s:%d: not a rejection: %v: %q", path, i+1, err, line)
		}
		out = append(out, r)
	}
	return out
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
