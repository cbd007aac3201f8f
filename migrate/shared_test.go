package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// sharedMapping builds three entities from table posts (one without a
// where, two with one that is NULL for some rows, two with set attributes
// whose conditions the reader evaluates, under the same column name) and
// one from table tags.
const sharedMapping = `version: 1
table:
  name: shared
  key: {pk: PK, sk: SK}
  entity_attribute: _type
entities:
  post:
    from: posts
    pk: "POST#{id}"
    sk: "POST"
    attributes:
      set: {Hot: {value: "hot", when: "score > 50"}}
  question:
    from: posts
    where: "kind = 'question'"
    pk: "QUESTION#{id}"
    sk: "{title}"
    attributes:
      include: [score]
      set: {Answered: {value: "yes", when: "answers > 0"}}
  top:
    from: posts
    where: "score > 90"
    pk: "TOP"
    sk: "{id}"
  tag:
    from: tags
    pk: "TAG#{id}"
    sk: "TAG"
`

// sharedData is n posts (every 3rd a question, every 7th of no kind,
// every 11th without a score) and 10 tags.
func sharedData(n int) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE posts (id INT PRIMARY KEY, kind VARCHAR(20), title VARCHAR(50) NOT NULL, score INT, answers INT);\n")
	b.WriteString("CREATE TABLE tags (id INT PRIMARY KEY, name VARCHAR(20));\n")
	for i := 1; i <= n; i++ {
		if i%500 == 1 {
			if i > 1 {
				b.WriteString(";\n")
			}
			b.WriteString("INSERT INTO posts VALUES ")
		} else {
			b.WriteString(", ")
		}
		kind, score := "'answer'", fmt.Sprint(i%100)
		if i%3 == 0 {
			kind = "'question'"
		}
		if i%7 == 0 {
			kind = "NULL"
		}
		if i%11 == 0 {
			score = "NULL"
		}
		fmt.Fprintf(&b, "(%d, %s, 't%d', %s, %d)", i, kind, i, score, i%4)
	}
	b.WriteString(";\nINSERT INTO tags VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e'), (6, 'f'), (7, 'g'), (8, 'h'), (9, 'i'), (10, 'j');\n")
	return b.String()
}

// scanLog is a source whose readers record every scan of a table: the
// table, its where and how many rows it gave.
type scanLog struct {
	source.Source
	mu    sync.Mutex
	scans []scanned
}

type scanned struct {
	table, where string
	rows         int
}

func (s *scanLog) Snapshot(ctx context.Context, n int) (source.Snapshot, error) {
	snap, err := s.Source.Snapshot(ctx, n)
	if err != nil {
		return nil, err
	}
	return &loggedSnapshot{Snapshot: snap, log: s}, nil
}

// of lists the scans of table that read rows (not the statement tried
// first, which reads none).
func (s *scanLog) of(table string) []scanned {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []scanned
	for _, sc := range s.scans {
		if sc.table == table && sc.where != "1=0" {
			out = append(out, sc)
		}
	}
	return out
}

type loggedSnapshot struct {
	source.Snapshot
	log *scanLog
}

func (s *loggedSnapshot) Readers() []source.Reader {
	var out []source.Reader
	for _, r := range s.Snapshot.Readers() {
		out = append(out, &loggedReader{Reader: r, log: s.log})
	}
	return out
}

type loggedReader struct {
	source.Reader
	log *scanLog
}

func (r *loggedReader) logged(t *introspect.Table, where string, scan func(func([]any) error) error, fn func([]any) error) error {
	n := 0
	err := scan(func(row []any) error { n++; return fn(row) })
	r.log.mu.Lock()
	r.log.scans = append(r.log.scans, scanned{table: t.Name, where: where, rows: n})
	r.log.mu.Unlock()
	return err
}

func (r *loggedReader) ScanTable(ctx context.Context, t *introspect.Table, where string, limit int, fn func([]any) error) error {
	return r.logged(t, where, func(f func([]any) error) error { return r.Reader.ScanTable(ctx, t, where, limit, f) }, fn)
}

func (r *loggedReader) ScanRange(ctx context.Context, t *introspect.Table, where string, kr source.KeyRange, fn func([]any) error) error {
	return r.logged(t, where, func(f func([]any) error) error { return r.Reader.ScanRange(ctx, t, where, kr, f) }, fn)
}

// TestSharedRead: the three entities built from table posts are read by
// one statement (with --ranges 3, by one statement per range), each row
// going to the entities whose where it matches; the report counts each
// entity's rows, and the table is exact (verify: every item, attribute by
// attribute, and no stray item). On both engines.
func TestSharedRead(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			fx := load(t, eng, sharedData(400), sharedMapping)
			db := newDB(t, endpoint)
			for _, ranges := range []int{1, 3} {
				t.Run(fmt.Sprintf("ranges %d", ranges), func(t *testing.T) {
					table := tableName(t, db)
					log := &scanLog{Source: fx.src}
					o := fx.options(db, table)
					o.Source, o.CreateTable, o.Ranges, o.Readers = log, true, ranges, 3
					rep, err := migrate.Run(testContext(t), o)
					if err != nil {
						t.Fatal(err)
					}
					checkLanded(t, fx, rep, db, table)
					scans := log.of("posts")
					if len(scans) != ranges {
						t.Errorf("table posts was read by %d statements, want %d (one per range): %+v", len(scans), ranges, scans)
					}
					read := 0
					for _, sc := range scans {
						read += sc.rows
						if sc.where != "" {
							t.Errorf("posts was read with where %q; one entity has none, so the shared read has none", sc.where)
						}
					}
					if read != 400 {
						t.Errorf("the reads of posts gave %d rows, the table has 400", read)
					}
					if n := len(log.of("tags")); n != ranges {
						t.Errorf("table tags was read by %d statements, want %d", n, ranges)
					}
					verifyExact(t, fx, db, table)
				})
			}
		})
	}
}

// TestSharedReadWhere: entities that all have a where are read by one
// statement whose WHERE joins theirs; an entity whose where the database
// refuses makes its table's entities read each by its own statement, and
// the run fails with the database's word on that where.
func TestSharedReadWhere(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	eng := testenv.Engines[0]
	db := newDB(t, endpoint)

	only := strings.Replace(sharedMapping, "  post:\n    from: posts\n", "  post:\n    from: posts\n    where: \"id > 100\"\n", 1)
	fx := load(t, eng, sharedData(400), only)
	table := tableName(t, db)
	log := &scanLog{Source: fx.src}
	o := fx.options(db, table)
	o.Source, o.CreateTable = log, true
	rep, err := migrate.Run(testContext(t), o)
	if err != nil {
		t.Fatal(err)
	}
	checkLanded(t, fx, rep, db, table)
	scans := log.of("posts")
	if len(scans) != 1 || !strings.Contains(scans[0].where, "id > 100") || !strings.Contains(scans[0].where, " OR ") {
		t.Errorf("posts was read by %+v, want one statement with the three wheres joined by OR", scans)
	}
	verifyExact(t, fx, db, table)

	bad := strings.Replace(sharedMapping, "where: \"score > 90\"", "where: \"no_such_column > 90\"", 1)
	schema, err := fx.src.Inspect(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	f, err := mapping.Parse("bad.yaml", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	log = &scanLog{Source: fx.src}
	o = fx.options(db, tableName(t, db))
	o.Source, o.CreateTable = log, true
	if o.Plan, err = mapping.Compile(f, schema); err != nil {
		t.Fatal(err)
	}
	_, err = migrate.Run(testContext(t), o)
	if err == nil || !strings.Contains(err.Error(), "no_such_column") {
		t.Fatalf("a run with a where the database refuses: %v", err)
	}
	var own bool
	for _, sc := range log.scans {
		own = own || sc.table == "posts" && sc.where == "no_such_column > 90"
	}
	if !own {
		t.Errorf("the entity whose where the database refuses was not read by its own statement: %+v", log.scans)
	}
}

// TestResumeSharedRead: a run of a mapping with a shared read, stopped
// mid-way, leaves a checkpoint that names the read's entities together,
// and --resume finishes the job exactly: nothing lost, nothing extra, the
// rows the first run settled not written again. On both engines, with
// key ranges.
func TestResumeSharedRead(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			fx := load(t, eng, sharedData(3000), sharedMapping)
			direct := newDB(t, endpoint)
			table := tableName(t, direct)
			_, _, slow := proxy(t, endpoint, 1, faultproxy.Rule{Fault: faultproxy.Delay, Ops: bwi, Prob: 1, Delay: 20 * time.Millisecond})
			ck := filepath.Join(t.TempDir(), "job.checkpoint.json")
			o := fx.options(slow, table)
			o.CreateTable = true
			o.Writers, o.Readers, o.Ranges = 2, 2, 2
			o.CheckpointPath, o.CheckpointEvery, o.MappingDigest, o.SourceID = ck, 50*time.Millisecond, "digest-1", "source-1"
			rep, err := migrate.Run(stopAfter(t, direct, table, 1000), o)
			if err == nil || !rep.Interrupted || !rep.Partial {
				t.Fatalf("the first run was not stopped mid-way: %v, %+v", err, rep)
			}
			first := rep.ItemsWritten
			var settled int64
			shared := 0
			for _, e := range checkpointOf(t, ck)["entities"].([]any) {
				ce := e.(map[string]any)
				settled += int64(ce["items"].(float64))
				also, _ := ce["also"].([]any)
				for _, a := range also {
					settled += int64(a.(map[string]any)["items"].(float64))
				}
				if ce["name"] == "post" && len(also) == 2 {
					shared++
				}
			}
			if shared != 2 {
				t.Errorf("the checkpoint has %d key ranges of the shared read of post, question and top, want 2:\n%s", shared, readFile(t, ck))
			}
			if settled == 0 || settled > first || first >= fx.total {
				t.Fatalf("the checkpoint settles %d items, the run acknowledged %d of %d", settled, first, fx.total)
			}

			o2 := fx.options(direct, table)
			o2.Writers, o2.Readers = 2, 2
			o2.CheckpointPath, o2.MappingDigest, o2.SourceID, o2.Resume = ck, "digest-1", "source-1", true
			rep2, err := migrate.Run(testContext(t), o2)
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			checkLanded(t, fx, rep2, direct, table)
			if rep2.Earlier == nil || rep2.Earlier.Items != settled {
				t.Errorf("the resumed report's earlier runs: %+v, want %d items", rep2.Earlier, settled)
			}
			if again := rep2.ItemsWritten - rep2.Earlier.Items; again != fx.total-settled {
				t.Errorf("the resumed run wrote %d items, want the %d the checkpoint did not settle", again, fx.total-settled)
			}
			if rep2.StrayItems != 0 {
				t.Errorf("the resumed run found %d stray items: %v", rep2.StrayItems, rep2.StrayKeys)
			}
			if _, err := os.Stat(ck); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the checkpoint of the finished job is still there: %v", err)
			}
			verifyExact(t, fx, direct, table)
		})
	}
}
