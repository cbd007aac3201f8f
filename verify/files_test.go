package verify_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/klauspost/compress/zstd"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

const filesBucket = "remodel-verify"

// filesFixture is the example migrated with --to into an in-process S3.
type filesFixture struct {
	o      verify.Options
	client *s3.Client
	comp   s3out.Compression
	keys   []string // the objects, sorted
	plan   *mapping.Plan
}

// exported loads the example into a fresh database of the engine and
// migrates it into ImportTable objects under s3://remodel-verify/orders/.
func exported(t *testing.T, engine string, fresh func(testing.TB) string, comp s3out.Compression) *filesFixture {
	t.Helper()
	ctx := context.Background()
	dsn := fresh(t)
	testenv.LoadExample(t, engine, dsn, example)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	plan := compile(t, src, exampleMapping(t))

	backend := s3mem.New()
	if err := backend.CreateBucket(filesBucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials:                credentials.NewStaticCredentialsProvider("local", "local", ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	store := s3out.New(client)
	loc := &s3out.Location{Bucket: filesBucket, Prefix: "orders/"}
	const digest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, To: loc, S3: store, ObjectSize: 64 << 10,
		Compression: comp, MappingDigest: digest})
	if err != nil {
		t.Fatalf("migrate --to: %v", err)
	}
	if rep.ItemsWritten != 6828 || rep.S3 == nil || rep.S3.Objects < 3 {
		t.Fatalf("migrate --to wrote %d items (want the example's 6828) in %+v", rep.ItemsWritten, rep.S3)
	}
	listed, err := store.List(ctx, filesBucket, loc.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	fx := &filesFixture{client: client, comp: comp, plan: plan,
		o: verify.Options{Plan: plan, Source: src, Samples: 5, Files: loc, S3: store, MappingDigest: digest}}
	for _, l := range listed {
		fx.keys = append(fx.keys, l.Key)
	}
	sort.Strings(fx.keys)
	return fx
}

func (fx *filesFixture) get(t *testing.T, key string) []byte {
	t.Helper()
	out, err := fx.client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(filesBucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (fx *filesFixture) put(t *testing.T, key string, b []byte) {
	t.Helper()
	_, err := fx.client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(filesBucket), Key: aws.String(key), Body: bytes.NewReader(b)})
	if err != nil {
		t.Fatal(err)
	}
}

func (fx *filesFixture) del(t *testing.T, key string) {
	t.Helper()
	_, err := fx.client.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(filesBucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
}

// items decompresses an object into its items.
func (fx *filesFixture) items(t *testing.T, b []byte) []mapping.Item {
	t.Helper()
	r, err := fx.comp.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []mapping.Item
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		it, err := av.ParseImportLine(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// encode writes items as an object in the fixture's compression.
func (fx *filesFixture) encode(t *testing.T, items []mapping.Item) []byte {
	t.Helper()
	var lines []byte
	for _, it := range items {
		var ok bool
		if lines, ok = av.AppendImportLine(lines, it); !ok {
			t.Fatal("AppendImportLine")
		}
	}
	var buf bytes.Buffer
	var w io.WriteCloser
	if fx.comp == s3out.Zstd {
		zw, err := zstd.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		w = zw
	} else {
		w = gzip.NewWriter(&buf)
	}
	if _, err := w.Write(lines); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rewrite replaces the first object by what change makes of its items,
// runs verify, puts the object back and returns the report.
func (fx *filesFixture) rewrite(t *testing.T, change func([]mapping.Item) []mapping.Item) *verify.Report {
	t.Helper()
	key := fx.keys[0]
	orig := fx.get(t, key)
	fx.put(t, key, fx.encode(t, change(fx.items(t, orig))))
	defer fx.put(t, key, orig)
	return fx.failing(t)
}

// failing runs verify, which must fail.
func (fx *filesFixture) failing(t *testing.T) *verify.Report {
	t.Helper()
	rep, err := verify.Run(context.Background(), fx.o)
	if err != nil {
		t.Fatalf("verify: %v\n%s", err, text(rep))
	}
	if rep.OK {
		t.Fatalf("verify passed:\n%s", text(rep))
	}
	failed, _ := rep.FailedChecks()
	if failed == 0 {
		t.Errorf("the report fails but names no failed check:\n%s", text(rep))
	}
	return rep
}

// filesProblems lists the report's problems of kind k as "key" (or the
// problem's Key and Attribute), from every check.
func filesProblems(rep *verify.Report, k verify.Kind) []verify.Problem {
	var all []verify.Problem
	lists := []*verify.Problems{&rep.Stray}
	if rep.Files != nil {
		lists = append(lists, &rep.Files.Problems)
	}
	for i := range rep.Counts {
		lists = append(lists, &rep.Counts[i].Problems)
	}
	for i := range rep.Items {
		lists = append(lists, &rep.Items[i].Problems)
	}
	for _, l := range lists {
		for _, p := range l.List {
			if p.Kind == k {
				all = append(all, p)
			}
		}
	}
	return all
}

// hasProblem fails the test unless the report has a problem of kind k
// whose Key is key (and, unless empty, whose Attribute is attr).
func hasProblem(t *testing.T, rep *verify.Report, k verify.Kind, key, attr string) {
	t.Helper()
	for _, p := range filesProblems(rep, k) {
		if p.Key == key && (attr == "" || p.Attribute == attr) {
			return
		}
	}
	t.Errorf("no %s problem names %s %s:\n%s", k, key, attr, text(rep))
}

// TestFiles: verify --files passes a faithful export of the example and
// names each fault planted in its objects — on both engines, gzip on one
// and zstd on the other.
func TestFiles(t *testing.T) {
	for i, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel() // each its own database, S3 and fixture
			fx := exported(t, eng.Name, eng.Fresh, []s3out.Compression{s3out.Gzip, s3out.Zstd}[i%2])
			tk := fx.plan.Table.KeyString

			t.Run("passes a faithful export", func(t *testing.T) {
				rep := run(t, fx.o)
				if !rep.OK || rep.Files == nil || !rep.Files.OK || !rep.Files.MappingChecked {
					t.Fatalf("verify --files failed on a faithful export:\n%s", text(rep))
				}
				if rep.Files.Read != len(fx.keys) || rep.Files.Objects != len(fx.keys) || rep.Files.Items != 6828 {
					t.Errorf("files: %+v, want %d objects and 6828 items", rep.Files, len(fx.keys))
				}
				if len(rep.Items) != 5 || len(rep.Counts) != 5 || len(rep.Patterns) != 6 {
					t.Fatalf("%d item checks, %d counts, %d patterns; want 5, 5, 6", len(rep.Items), len(rep.Counts), len(rep.Patterns))
				}
				var compared int64
				for _, ic := range rep.Items {
					compared += ic.Compared
				}
				if compared != 6828 {
					t.Errorf("%d items compared, want 6828", compared)
				}
				for _, p := range rep.Patterns {
					if !p.NotChecked || p.Samples != 0 || !strings.Contains(p.Note, "not checked (files)") {
						t.Errorf("pattern %s: %+v; want not checked (files)", p.Name, p)
					}
				}
				out := text(rep)
				if !strings.Contains(out, "files (the check is on migrate --to's objects") || !strings.Contains(out, "SKIP") {
					t.Errorf("the text report does not say the check was on files:\n%s", out)
				}
				for _, f := range report.Formats(rep) {
					var b strings.Builder
					if err := report.Write(&b, f, rep); err != nil || !strings.Contains(b.String(), "s3://"+filesBucket+"/orders/") {
						t.Errorf("%s: %v, the report does not name the files:\n%s", f, err, b.String())
					}
				}
			})

			t.Run("an item changed", func(t *testing.T) {
				var key, attr string
				rep := fx.rewrite(t, func(items []mapping.Item) []mapping.Item {
					it := items[0]
					key = tk(it)
					var names []string
					for n := range it {
						if n != "PK" && n != "SK" && n != fx.plan.Table.EntityAttr {
							names = append(names, n)
						}
					}
					sort.Strings(names)
					attr = names[0]
					it[attr] = &types.AttributeValueMemberS{Value: "tampered"}
					return items
				})
				hasProblem(t, rep, verify.KindDifferent, key, attr)
				hasProblem(t, rep, verify.KindObjectDamaged, fx.keys[0], "")
			})

			t.Run("an item removed", func(t *testing.T) {
				var key string
				rep := fx.rewrite(t, func(items []mapping.Item) []mapping.Item {
					key = tk(items[1])
					return append(items[:1], items[2:]...)
				})
				hasProblem(t, rep, verify.KindMissing, key, "")
				if len(filesProblems(rep, verify.KindCount)) != 1 {
					t.Errorf("want one count mismatch:\n%s", text(rep))
				}
			})

			t.Run("an extra item", func(t *testing.T) {
				var key string
				rep := fx.rewrite(t, func(items []mapping.Item) []mapping.Item {
					extra := mapping.Item{}
					for n, v := range items[0] {
						extra[n] = v
					}
					extra["SK"] = &types.AttributeValueMemberS{Value: "EXTRA#1"}
					key = tk(extra)
					return append(items, extra)
				})
				hasProblem(t, rep, verify.KindStray, key, "")
				if len(filesProblems(rep, verify.KindCount)) != 1 {
					t.Errorf("want one count mismatch:\n%s", text(rep))
				}
			})

			t.Run("an object missing", func(t *testing.T) {
				key := fx.keys[len(fx.keys)-1]
				orig := fx.get(t, key)
				fx.del(t, key)
				defer fx.put(t, key, orig)
				rep := fx.failing(t)
				hasProblem(t, rep, verify.KindObjectMissing, key, "")
				if n := len(filesProblems(rep, verify.KindMissing)); n == 0 {
					t.Errorf("the items of the missing object are not named missing:\n%s", text(rep))
				}
			})

			t.Run("an object not in the manifest", func(t *testing.T) {
				key := "orders/zz-unlisted" + fx.comp.Ext()
				fx.put(t, key, fx.encode(t, nil))
				defer fx.del(t, key)
				rep := fx.failing(t)
				hasProblem(t, rep, verify.KindObjectUnlisted, key, "")
			})

			t.Run("an edited table definition", func(t *testing.T) {
				key := fx.o.Files.ManifestKey()
				orig := fx.get(t, key)
				defer fx.put(t, key, orig)
				var m map[string]any
				if err := json.Unmarshal(orig, &m); err != nil {
					t.Fatal(err)
				}
				table := m["table"].(map[string]any)
				table["BillingMode"] = "PROVISIONED"
				table["ProvisionedThroughput"] = map[string]any{"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
				table["KeySchema"] = table["KeySchema"].([]any)[:1]
				edited, err := json.Marshal(m)
				if err != nil {
					t.Fatal(err)
				}
				fx.put(t, key, edited)
				rep := fx.failing(t)
				ps := filesProblems(rep, verify.KindTableDefinition)
				var what []string
				for _, p := range ps {
					what = append(what, p.Attribute+": "+p.Got+", want "+p.Want)
				}
				want := []string{"billing mode: PROVISIONED, want PAY_PER_REQUEST", "key schema: PK HASH, want PK HASH, SK RANGE", "provisioned throughput: read 5, write 5, want none"}
				if !slices.Equal(what, want) {
					t.Errorf("table definition problems %q, want %q:\n%s", what, want, text(rep))
				}
			})

			t.Run("causes before consequences when cut", func(t *testing.T) {
				// A copy of an object under the prefix: every item of it is
				// in the objects twice; cut at 3 problems, the copy not in
				// the manifest (the cause) is first.
				key := "orders/zz-copy" + fx.comp.Ext()
				fx.put(t, key, fx.get(t, fx.keys[0]))
				defer fx.del(t, key)
				o := fx.o
				o.MaxProblems = 3
				rep, err := verify.Run(context.Background(), o)
				if err != nil || rep.OK {
					t.Fatalf("verify: %v, ok %v\n%s", err, rep.OK, text(rep))
				}
				ps := rep.Files.Problems
				if ps.Total < 10 || len(ps.List) != 3 || ps.List[0].Kind != verify.KindObjectUnlisted || ps.List[0].Key != key {
					t.Errorf("%d problems, kept %+v; want the object not in the manifest first", ps.Total, ps.List)
				}
			})

			t.Run("a damaged object", func(t *testing.T) {
				key := fx.keys[0]
				orig := fx.get(t, key)
				bad := bytes.Clone(orig)
				bad[len(bad)/2] ^= 0x55
				fx.put(t, key, bad)
				defer fx.put(t, key, orig)
				rep := fx.failing(t)
				named := false
				for _, p := range filesProblems(rep, verify.KindObjectDamaged) {
					named = named || p.Key == key && len(p.Want) == 64 && len(p.Got) == 64 && p.Want != p.Got
				}
				if !named {
					t.Errorf("the object's SHA-256 is not named as differing from the manifest's:\n%s", text(rep))
				}
			})

			t.Run("another mapping", func(t *testing.T) {
				o := fx.o
				o.MappingDigest = strings.Repeat("f", 64)
				rep, err := verify.Run(context.Background(), o)
				if err != nil || rep.OK {
					t.Fatalf("verify: %v, ok %v\n%s", err, rep.OK, text(rep))
				}
				if len(filesProblems(rep, verify.KindMappingDigest)) != 1 {
					t.Errorf("no mapping digest mismatch:\n%s", text(rep))
				}
				o.MappingDigest = ""
				rep = run(t, o)
				if !rep.OK || !strings.Contains(rep.Warning, "mapping digest was not compared") {
					t.Errorf("without a digest: ok %v, warning %q", rep.OK, rep.Warning)
				}
			})
		})
	}
}

// TestProblemsCausesFirst: a list of problems cut at Max keeps the
// problems that explain the others (a manifest's, then an object's)
// before the keys twice in the objects they cause, whatever their keys.
func TestProblemsCausesFirst(t *testing.T) {
	causes := []verify.Kind{verify.KindManifestMissing, verify.KindManifestConflict, verify.KindSplitConflict,
		verify.KindMappingDigest, verify.KindTableDefinition, verify.KindObjectMissing, verify.KindObjectUnlisted, verify.KindObjectDamaged}
	for _, k := range causes {
		t.Run(string(k), func(t *testing.T) {
			ps := verify.Problems{Max: 3}
			for i := range 100 {
				ps.Add(verify.Problem{Kind: verify.KindFilesDuplicate, Key: fmt.Sprintf("PK=A#%03d", i), Message: "twice"})
			}
			ps.Add(verify.Problem{Kind: k, Key: "zz", Message: "the cause"})
			ps.Add(verify.Problem{Kind: verify.KindObjectUnlisted, Key: "zzz", Message: "an object"})
			ps.Sort()
			if ps.List[0].Kind != k || ps.List[1].Kind != verify.KindObjectUnlisted && k != verify.KindObjectUnlisted {
				t.Errorf("kept %+v; want %s first, then the object", ps.List, k)
			}
		})
	}
}
