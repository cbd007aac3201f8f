package migrate_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// fakeS3 is where a test run writes its objects: an in-process S3
// (gofakes3, newFakeS3) or a local directory (newDirStore), that counts the
// objects put, by key, and may hold every request (every write, for a
// directory) back a little.
type fakeS3 struct {
	store  s3out.Store // what the run is given
	s3     *s3out.S3   // the S3 client's store (nil for a directory)
	client *s3.Client
	bucket string // the Location's Bucket: the bucket, or the directory
	dir    bool
	mu     sync.Mutex
	puts   map[string]int // single PUTs and completed multipart uploads, by key
	parts  int            // multipart parts uploaded
	delay  time.Duration
}

// stores are the two kinds of place the route writes to; the tests of
// what it writes run on both.
var stores = []struct {
	name string
	new  func(testing.TB) *fakeS3
}{{"s3", newFakeS3}, {"dir", newDirStore}}

// newDirStore is a local directory (file://<temp dir>/prefix/), through
// s3out.Dir, counting its writes.
func newDirStore(t testing.TB) *fakeS3 {
	f := &fakeS3{puts: map[string]int{}, bucket: t.TempDir(), dir: true}
	f.store = countingDir{f}
	return f
}

// countingDir is s3out.Dir counting (and delaying) the objects it writes.
type countingDir struct{ f *fakeS3 }

func (c countingDir) count(key string) {
	c.f.mu.Lock()
	c.f.puts[key]++
	delay := c.f.delay
	c.f.mu.Unlock()
	time.Sleep(delay)
}

func (c countingDir) List(ctx context.Context, bucket, prefix string) ([]s3out.Listed, error) {
	return s3out.Dir{}.List(ctx, bucket, prefix)
}

func (c countingDir) Upload(ctx context.Context, bucket, key string, body io.Reader, size int64, ct string) (string, error) {
	c.count(key)
	return s3out.Dir{}.Upload(ctx, bucket, key, body, size, ct)
}

func (c countingDir) Put(ctx context.Context, bucket, key string, body []byte, ct string) error {
	c.count(key)
	return s3out.Dir{}.Put(ctx, bucket, key, body, ct)
}

func (c countingDir) Get(ctx context.Context, bucket, key string) ([]byte, error) {
	return s3out.Dir{}.Get(ctx, bucket, key)
}

func (c countingDir) Download(ctx context.Context, bucket, key string, w io.WriterAt) (int64, error) {
	return s3out.Dir{}.Download(ctx, bucket, key, w)
}

func (c countingDir) Create(ctx context.Context, bucket, key string, body []byte, ct string) error {
	return s3out.Dir{}.Create(ctx, bucket, key, body, ct)
}

func (c countingDir) Delete(ctx context.Context, bucket, key string) error {
	return s3out.Dir{}.Delete(ctx, bucket, key)
}

const bucket = "remodel-test"

func newFakeS3(t testing.TB) *fakeS3 {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	faker := gofakes3.New(backend).Server()
	f := &fakeS3{puts: map[string]int{}, bucket: bucket}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		delay := f.delay
		key := strings.TrimPrefix(r.URL.Path, "/"+bucket+"/")
		q := r.URL.Query()
		switch {
		case r.Method == http.MethodPut && q.Has("partNumber"):
			f.parts++
		case r.Method == http.MethodPut, r.Method == http.MethodPost && q.Has("uploadId"):
			f.puts[key]++
		}
		f.mu.Unlock()
		time.Sleep(delay)
		faker.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.client = s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials:                credentials.NewStaticCredentialsProvider("local", "local", ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	f.s3 = s3out.New(f.client)
	f.store = f.s3
	return f
}

func (f *fakeS3) putCounts() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for k, v := range f.puts {
		out[k] = v
	}
	return out
}

func (f *fakeS3) setDelay(d time.Duration) {
	f.mu.Lock()
	f.delay = d
	f.mu.Unlock()
}

// s3Options are the options of a test run into the fake S3 under prefix.
func (fx *fixture) s3Options(f *fakeS3, prefix string) migrate.Options {
	o := fx.options(nil, "")
	o.To = &s3out.Location{Bucket: f.bucket, Prefix: prefix, Dir: f.dir}
	o.S3 = f.store
	return o
}

// manifest is the part of the manifest the tests read.
type manifest struct {
	URL         string `json:"url"`
	InputFormat string `json:"input_format"`
	Compression string `json:"input_compression_type"`
	Items       int64  `json:"items"`
	Table       struct {
		TableName string
		KeySchema []struct{ AttributeName, KeyType string }
	} `json:"table"`
	Objects []struct {
		Key          string `json:"key"`
		Items        int64  `json:"items"`
		Bytes        int64  `json:"bytes"`
		Uncompressed int64  `json:"uncompressed_bytes"`
		SHA256       string `json:"sha256"`
	} `json:"objects"`
}

// objectsRead is what the objects under a prefix hold, read back strictly.
type objectsRead struct {
	items   map[string]string          // item JSON (names sorted) by key JSON
	where   map[string]string          // the object of each item, by key JSON
	objects map[string]objectReadStats // by key
}

type objectReadStats struct {
	items, raw, size int64
	sha256, etag     string
}

// readObjects reads every object under prefix, decompresses it and parses
// every line with the strict reader of ImportTable's DYNAMODB_JSON format;
// a key twice (in one object or two) fails the test.
func readObjects(t *testing.T, f *fakeS3, prefix string, comp s3out.Compression) objectsRead {
	t.Helper()
	ctx := testContext(t)
	listed, err := f.store.List(ctx, f.bucket, prefix)
	if err != nil {
		t.Fatal(err)
	}
	out := objectsRead{items: map[string]string{}, where: map[string]string{}, objects: map[string]objectReadStats{}}
	for _, l := range listed {
		b, err := f.store.Get(ctx, f.bucket, l.Key)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		st := objectReadStats{size: int64(len(b)), sha256: hex.EncodeToString(sum[:]), etag: l.ETag}
		zr, err := comp.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", l.Key, err)
		}
		sc := bufio.NewScanner(zr)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			st.items++
			st.raw += int64(len(sc.Bytes()) + 1)
			item, err := av.ParseImportLine(sc.Bytes())
			if err != nil {
				t.Fatalf("%s, line %d: %v: %s", l.Key, st.items, err, sc.Bytes())
			}
			key := mapping.Item{"PK": item["PK"]}
			if sk, ok := item["SK"]; ok {
				key["SK"] = sk
			}
			k := string(av.MarshalItem(key))
			if was, dup := out.where[k]; dup {
				t.Errorf("key %s is in %s and again in %s", k, was, l.Key)
			}
			out.items[k] = string(av.MarshalItem(item))
			out.where[k] = l.Key
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", l.Key, err)
		}
		zr.Close()
		out.objects[l.Key] = st
	}
	return out
}

// readManifest reads the manifest of prefix (beside it, not under it).
func readManifest(t *testing.T, f *fakeS3, loc s3out.Location) manifest {
	t.Helper()
	if strings.HasPrefix(loc.ManifestKey(), loc.Prefix) {
		t.Fatalf("the manifest %s is under the import prefix %s", loc.ManifestKey(), loc.Prefix)
	}
	b, err := f.store.Get(testContext(t), loc.Bucket, loc.ManifestKey())
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkManifest compares the manifest with the objects read back.
func checkManifest(t *testing.T, m manifest, got objectsRead, total int64) {
	t.Helper()
	if m.InputFormat != "DYNAMODB_JSON" || m.Items != total || len(m.Objects) != len(got.objects) {
		t.Errorf("manifest: format %s, %d items, %d objects; the objects hold %d items in %d objects", m.InputFormat, m.Items, len(m.Objects), len(got.items), len(got.objects))
	}
	for _, o := range m.Objects {
		st, ok := got.objects[o.Key]
		switch {
		case !ok:
			t.Errorf("the manifest lists %s, which is not under the prefix", o.Key)
		case o.Items != st.items || o.Bytes != st.size || o.Uncompressed != st.raw || o.SHA256 != st.sha256:
			t.Errorf("manifest, object %s: %d items, %d bytes (%d uncompressed), sha256 %s; the object has %d, %d (%d), %s", o.Key, o.Items, o.Bytes, o.Uncompressed, o.SHA256, st.items, st.size, st.raw, st.sha256)
		}
	}
}

// TestS3Objects: migrate --to writes every row as exactly one line of
// ImportTable's DynamoDB JSON in exactly one object, the same items the
// DynamoDB route writes into a table; every object within the size bound,
// the items of one collection spread over several objects, the manifest
// beside the prefix matching the objects (items, sizes, SHA-256), and the
// key collision check forced. gzip on one engine, zstd on the other.
func TestS3Objects(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for i, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			fx := personalization(t, eng)
			db := newDB(t, endpoint)
			table := tableName(t, db)
			o := fx.options(db, table)
			o.CreateTable = true
			if _, err := migrate.Run(testContext(t), o); err != nil {
				t.Fatal(err)
			}
			want := scanItems(t, db, table)
			for _, st := range stores {
				t.Run(st.name, func(t *testing.T) {
					s3Objects(t, fx, st.new(t), want, []s3out.Compression{s3out.Gzip, s3out.Zstd}[i%2])
				})
			}
		})
	}
}

// s3Objects is TestS3Objects' check of one store: the objects the route
// writes into it hold exactly the items want, which the DynamoDB route
// wrote.
func s3Objects(t *testing.T, fx *fixture, f *fakeS3, want map[string]string, comp s3out.Compression) {
	o := fx.s3Options(f, "orders/")
	o.ObjectSize = 16 << 10
	o.ObjectItems = 30 // below what 16 KiB holds: objects are cut by either bound
	o.Compression = comp
	rep, err := migrate.Run(testContext(t), o)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.ItemsWritten != fx.total || rep.RowsRead != fx.total || rep.S3 == nil || rep.S3.Objects < 2*o.Writers {
		t.Fatalf("report: ok %v, %d rows, %d items (the source has %d), S3 %+v", rep.OK, rep.RowsRead, rep.ItemsWritten, fx.total, rep.S3)
	}
	if !rep.KeyCheckForced || rep.KeyCheck == nil {
		t.Errorf("the key collision check was not forced: forced %v, stats %+v", rep.KeyCheckForced, rep.KeyCheck)
	}
	got := readObjects(t, f, "orders/", o.Compression)
	if len(got.items) != len(want) {
		t.Errorf("the objects hold %d items, the DynamoDB route wrote %d", len(got.items), len(want))
	}
	for k, w := range want {
		if g, ok := got.items[k]; !ok {
			t.Errorf("item %s is in no object", k)
		} else if g != w {
			t.Errorf("item %s:\nobject %s\ntable  %s", k, g, w)
		}
	}
	var bytes int64
	for key, st := range got.objects {
		bytes += st.size
		if st.raw > o.ObjectSize {
			t.Errorf("%s holds %d bytes of JSON, more than the bound %d", key, st.raw, o.ObjectSize)
		}
		if st.items > o.ObjectItems {
			t.Errorf("%s holds %d items, more than the bound %d", key, st.items, o.ObjectItems)
		}
		if !strings.HasSuffix(key, o.Compression.Ext()) {
			t.Errorf("%s: not a %s object's name", key, o.Compression)
		}
	}
	if bytes != rep.S3.Bytes || len(got.objects) != rep.S3.Objects {
		t.Errorf("report: %d objects of %d bytes; under the prefix: %d of %d", rep.S3.Objects, rep.S3.Bytes, len(got.objects), bytes)
	}
	// The items of the largest item collection are dealt over the
	// objects: no object holds more than half of them.
	count, objs := map[string]int{}, map[string]map[string]int{}
	for k, obj := range got.where {
		var key map[string]any
		if err := json.Unmarshal([]byte(k), &key); err != nil {
			t.Fatal(err)
		}
		pk := fmt.Sprint(key["PK"])
		count[pk]++
		if objs[pk] == nil {
			objs[pk] = map[string]int{}
		}
		objs[pk][obj]++
	}
	best := ""
	for pk, n := range count {
		if n > count[best] {
			best = pk
		}
	}
	most := 0
	for _, n := range objs[best] {
		most = max(most, n)
	}
	if count[best] < 8 || most > count[best]/2 {
		t.Errorf("of the %d items of the largest collection, %s, one object holds %d (in %d objects)", count[best], best, most, len(objs[best]))
	}
	m := readManifest(t, f, *o.To)
	checkManifest(t, m, got, fx.total)
	if m.Compression != strings.ToUpper(string(o.Compression)) || m.Table.TableName != "personalization" || len(m.Table.KeySchema) != 2 {
		t.Errorf("manifest: compression %s, table %+v", m.Compression, m.Table)
	}
	url, manifestURL := "s3://"+bucket+"/orders/", "s3://"+bucket+"/orders.remodel-manifest.json"
	if f.dir {
		url, manifestURL = "file://"+f.bucket+"/orders/", "file://"+f.bucket+"/orders.remodel-manifest.json"
	}
	if m.URL != url || rep.S3.URL != url || rep.S3.Manifest != manifestURL {
		t.Errorf("manifest: url %s, reported %s at %s; want %s at %s", m.URL, rep.S3.URL, rep.S3.Manifest, url, manifestURL)
	}
}

// TestS3DuplicateKeys: rows rendering one key are rejected before any
// object is uploaded (ImportTable would keep one of them, silently); the
// objects hold every other row's item, once.
func TestS3DuplicateKeys(t *testing.T) {
	eng := testenv.Engines[0]
	fx := load(t, eng, farEventsSQL(), eventsMapping)
	f := newFakeS3(t)
	o := fx.s3Options(f, "events/")
	o.ObjectSize = 8 << 10
	o.MaxRejects = 100
	o.RejectsPath = filepath.Join(t.TempDir(), "rejects.jsonl")
	rep, err := migrate.Run(testContext(t), o)
	if err != nil {
		t.Fatal(err)
	}
	got := readObjects(t, f, "events/", s3out.Gzip)
	if rep.Rejected != 3 || int64(len(got.items)) != fx.total-3 || rep.ItemsWritten != fx.total-3 {
		t.Errorf("%d rows, %d rejected, %d items reported, %d in the objects; want the 3 rows repeating a key rejected", fx.total, rep.Rejected, rep.ItemsWritten, len(got.items))
	}
	for _, r := range rejectLines(t, o.RejectsPath) {
		if !strings.Contains(r.Reason, "key collision") {
			t.Errorf("rejected %s: %s", r.Row, r.Reason)
		}
	}
}

// TestS3Refused: a mapping with a local index (ImportTable creates none),
// --create-table, --allow-non-empty and --follow with --to, a prefix that
// already holds objects, and --import into a table that exists are
// refused before anything is written.
func TestS3Refused(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	f := newFakeS3(t)
	ctx := testContext(t)
	run := func(o migrate.Options) error {
		_, err := migrate.Run(ctx, o)
		return err
	}
	plan := *fx.plan
	plan.Table.Indexes = append(append([]*mapping.Index(nil), plan.Table.Indexes...), &mapping.Index{Name: "LSI1", PK: []mapping.KeyAttr{plan.Table.PK}, SK: []mapping.KeyAttr{{Name: "data", Type: "S"}}, Local: true})
	o := fx.s3Options(f, "a/")
	o.Plan = &plan
	if err := run(o); err == nil || !strings.Contains(err.Error(), "cannot create local indexes") {
		t.Errorf("a local index: %v", err)
	}
	for _, set := range []func(*migrate.Options){
		func(o *migrate.Options) { o.CreateTable = true },
		func(o *migrate.Options) { o.AllowNonEmpty = true },
		func(o *migrate.Options) { o.Follow = true },
	} {
		o := fx.s3Options(f, "a/")
		set(&o)
		if err := run(o); err == nil || !strings.Contains(err.Error(), "does not go with") {
			t.Errorf("refused: %v", err)
		}
	}
	if err := f.store.Put(ctx, bucket, "a/stray.json", []byte("{}"), "application/json"); err != nil {
		t.Fatal(err)
	}
	if err := run(fx.s3Options(f, "a/")); err == nil || !strings.Contains(err.Error(), "already holds 1 objects") {
		t.Errorf("a prefix with an object: %v", err)
	}
	db := newDB(t, endpoint)
	table := tableName(t, db)
	if err := migrate.CreateTable(ctx, db, &fx.plan.Table, table, time.Minute); err != nil {
		t.Fatal(err)
	}
	o = fx.s3Options(f, "b/")
	o.DB, o.Table, o.Import = db, table, true
	if err := run(o); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("--import into a table that exists: %v", err)
	}
	put := 0
	for key := range f.putCounts() {
		if !strings.HasSuffix(key, ".remodel-claim.json") { // a run claims its prefix before it looks at it, and releases the claim
			put++
		}
	}
	if put != 1 {
		t.Errorf("%d objects were put, want only the test's own", put)
	}
	if listed, _ := f.store.List(ctx, bucket, "a."); len(listed) != 0 {
		t.Errorf("the refused run left %s", listed[0].Key)
	}
}

// TestS3Resume: a run stopped while it uploads (a canceled context)
// leaves a checkpoint listing the objects it covers; --resume keeps every
// object uploaded (none is put again, each keeps its ETag), writes the
// rest, and the objects end holding every row's item exactly once, the
// same as a run that was never stopped. On both engines.
func TestS3Resume(t *testing.T) {
	for _, eng := range testenv.Engines {
		for _, store := range stores {
			t.Run(eng.Name+"/"+store.name, func(t *testing.T) { s3Resume(t, eng, store.new) })
		}
	}
}

// s3Resume is TestS3Resume on one engine and one kind of store.
func s3Resume(t *testing.T, eng engine, newStore func(testing.TB) *fakeS3) {
	fx := personalization(t, eng)
	f := newStore(t)
	f.setDelay(40 * time.Millisecond)
	ck := filepath.Join(t.TempDir(), "ck.json")
	o := fx.s3Options(f, "job/")
	o.ObjectSize = 8 << 10
	o.Writers = 3
	o.CheckpointPath, o.CheckpointEvery, o.MappingDigest, o.SourceID = ck, 20*time.Millisecond, "digest-1", "source-1"
	ctx, cancel := context.WithCancel(testContext(t))
	go func() {
		defer cancel()
		for len(f.putCounts()) < 12 {
			time.Sleep(5 * time.Millisecond)
		}
	}()
	rep, err := migrate.Run(ctx, o)
	if err == nil || !rep.Interrupted || !rep.Partial || rep.Checkpoint != ck {
		t.Fatalf("the stopped run: %v, interrupted %v, partial %v, checkpoint %q", err, rep.Interrupted, rep.Partial, rep.Checkpoint)
	}
	var text strings.Builder
	report.Write(&text, report.Text, rep)
	if !strings.Contains(text.String(), "migrate --resume") {
		t.Errorf("the report does not say how to resume:\n%s", text.String())
	}
	before := readObjects(t, f, "job/", s3out.Gzip)
	if len(before.objects) == 0 || int64(len(before.items)) >= fx.total {
		t.Fatalf("the stopped run uploaded %d objects, %d items of %d", len(before.objects), len(before.items), fx.total)
	}
	var ckf struct {
		S3 struct {
			Objects []struct{ Key string } `json:"objects"`
		} `json:"s3"`
	}
	if err := json.Unmarshal([]byte(readFile(t, ck)), &ckf); err != nil {
		t.Fatal(err)
	}
	for _, ob := range ckf.S3.Objects {
		if _, ok := before.objects[ob.Key]; !ok {
			t.Errorf("the checkpoint lists %s, which was not uploaded", ob.Key)
		}
	}

	// An upload of the stopped run stored late: an object of its name
	// (a copy of one it uploaded, its items again) that the resumed run's
	// listings do not show until it uploads an object of its own, as a PUT
	// in flight at a kill can be stored after the next run looked. The
	// resumed run deletes it before its manifest (ImportTable would import
	// its items twice) and says so.
	late := lateCopy(t, f, before)
	f.setDelay(0)
	o.Resume = true
	o.S3 = &lateStore{Store: o.S3, hidden: late}
	rep, err = migrate.Run(testContext(t), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.S3.LateDeleted) != 1 || rep.S3.LateDeleted[0] != o.To.URL(late) {
		t.Errorf("the resumed run deleted %v, want the late object %s", rep.S3.LateDeleted, o.To.URL(late))
	}
	if rep.ItemsWritten != fx.total || rep.RowsRead != fx.total || rep.Earlier == nil || rep.S3.ObjectsKept != len(before.objects) {
		t.Errorf("the resumed run: %d rows, %d items (the source has %d), earlier %+v, kept %d objects of %d", rep.RowsRead, rep.ItemsWritten, fx.total, rep.Earlier, rep.S3.ObjectsKept, len(before.objects))
	}
	t.Logf("stopped after %d objects (%d covered by the checkpoint); the resumed run found %d items in the others", len(before.objects), len(ckf.S3.Objects), rep.S3.ItemsFound)
	for key, n := range f.putCounts() {
		if n != 1 && !strings.HasSuffix(key, ".remodel-claim.json") { // a claim is written again by its heartbeat
			t.Errorf("%s was put %d times", key, n)
		}
	}
	after := readObjects(t, f, "job/", s3out.Gzip)
	for key, st := range before.objects {
		if after.objects[key].etag != st.etag {
			t.Errorf("%s changed: ETag %s, was %s", key, after.objects[key].etag, st.etag)
		}
	}
	if int64(len(after.items)) != fx.total {
		t.Errorf("the objects hold %d items, the source has %d rows", len(after.items), fx.total)
	}
	// The same items as a run never stopped.
	g := newStore(t)
	if _, err := migrate.Run(testContext(t), fx.s3Options(g, "whole/")); err != nil {
		t.Fatal(err)
	}
	whole := readObjects(t, g, "whole/", s3out.Gzip)
	for k, w := range whole.items {
		if after.items[k] != w {
			t.Errorf("item %s: resumed %s, whole %s", k, after.items[k], w)
		}
	}
	checkManifest(t, readManifest(t, f, *o.To), after, fx.total)
	if _, err := os.Stat(ck); !os.IsNotExist(err) {
		t.Errorf("the finished job's checkpoint is still there: %v", err)
	}
}

// lateCopy stores a copy of one of the objects read as an object of the
// same run numbered 999999, and returns its key.
func lateCopy(t *testing.T, f *fakeS3, read objectsRead) string {
	t.Helper()
	for key := range read.objects {
		i := strings.LastIndex(key, "-")
		if i < 0 {
			continue
		}
		late := key[:i+1] + "999999" + key[strings.Index(key[i:], ".")+i:]
		b, err := f.store.Get(testContext(t), f.bucket, key)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.store.Put(testContext(t), f.bucket, late, b, "application/gzip"); err != nil {
			t.Fatal(err)
		}
		return late
	}
	t.Fatal("no object to copy")
	return ""
}

// lateStore hides the object hidden from every listing until the run
// uploads an object: it was stored after the run looked.
type lateStore struct {
	s3out.Store
	hidden   string
	mu       sync.Mutex
	uploaded bool
}

func (l *lateStore) List(ctx context.Context, bucket, prefix string) ([]s3out.Listed, error) {
	listed, err := l.Store.List(ctx, bucket, prefix)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.uploaded {
		return listed, err
	}
	return slices.DeleteFunc(listed, func(x s3out.Listed) bool { return x.Key == l.hidden }), err
}

func (l *lateStore) Upload(ctx context.Context, bucket, key string, body io.Reader, size int64, ct string) (string, error) {
	l.mu.Lock()
	l.uploaded = true
	l.mu.Unlock()
	return l.Store.Upload(ctx, bucket, key, body, size, ct)
}

// importer stands in for DynamoDB's ImportTable, which DynamoDB Local does
// not have: a test-only loader that creates the table from the request's
// TableCreationParameters in DynamoDB Local and puts every item of every
// object under the prefix, read with the strict reader, 25 a
// BatchWriteItem (a key twice in one request fails it: the objects these
// tests import hold none).
type importer struct {
	dynamo.API
	t    *testing.T
	f    *fakeS3
	req  *dynamodb.ImportTableInput
	done *types.ImportTableDescription
	// during, when set, runs as the import starts (a workload that
	// commits changes while the import runs).
	during func()
}

func (m *importer) ImportTable(ctx context.Context, in *dynamodb.ImportTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.ImportTableOutput, error) {
	m.req = in
	if m.during != nil {
		m.during()
	}
	p := in.TableCreationParameters
	if _, err := m.API.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: p.TableName, AttributeDefinitions: p.AttributeDefinitions, KeySchema: p.KeySchema,
		BillingMode: p.BillingMode, ProvisionedThroughput: p.ProvisionedThroughput, GlobalSecondaryIndexes: p.GlobalSecondaryIndexes,
	}); err != nil {
		return nil, err
	}
	if err := dynamodb.NewTableExistsWaiter(m.API).Wait(ctx, &dynamodb.DescribeTableInput{TableName: p.TableName}, time.Minute); err != nil {
		return nil, err
	}
	comp, ok := s3out.CompressionOfImportType(string(in.InputCompressionType))
	if !ok {
		return nil, fmt.Errorf("InputCompressionType %q", in.InputCompressionType)
	}
	listed, err := m.f.store.List(ctx, *in.S3BucketSource.S3Bucket, *in.S3BucketSource.S3KeyPrefix)
	if err != nil {
		return nil, err
	}
	var n int64
	// The items go in by BatchWriteItem, 25 a request, each request sent
	// again with its unprocessed items until none is left.
	var batch []types.WriteRequest
	flush := func() error {
		for len(batch) > 0 {
			out, err := m.API.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{*p.TableName: batch}})
			if err != nil {
				return err
			}
			batch = out.UnprocessedItems[*p.TableName]
		}
		return nil
	}
	for _, l := range listed {
		b, err := m.f.store.Get(ctx, bucket, l.Key)
		if err != nil {
			return nil, err
		}
		zr, err := comp.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n") {
			item, err := av.ParseImportLine([]byte(line))
			if err != nil {
				return nil, err
			}
			if batch = append(batch, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}); len(batch) == 25 {
				if err := flush(); err != nil {
					return nil, err
				}
			}
			n++
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	m.done = &types.ImportTableDescription{ImportArn: aws.String("arn:aws:dynamodb:us-east-1:1:table/x/import/1"), ImportStatus: types.ImportStatusCompleted, ProcessedItemCount: n, ImportedItemCount: n}
	return &dynamodb.ImportTableOutput{ImportTableDescription: &types.ImportTableDescription{ImportArn: m.done.ImportArn, ImportStatus: types.ImportStatusInProgress}}, nil
}

func (m *importer) DescribeImport(context.Context, *dynamodb.DescribeImportInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeImportOutput, error) {
	return &dynamodb.DescribeImportOutput{ImportTableDescription: m.done}, nil
}

// TestS3Import: migrate --to --import on both engines, with a test-only
// loader in place of ImportTable: the request names the prefix, the
// format and compression, and the mapping's table; the table the loader
// builds from the objects passes verify, item by item and every access
// pattern; TTL is enabled afterwards.
func TestS3Import(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	defer migrate.SetImportPoll(time.Millisecond)()
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			fx := personalization(t, eng)
			fx.plan.Table.TTL = "expiresAt"
			db := newDB(t, endpoint)
			table := tableName(t, db)
			f := newFakeS3(t)
			imp := &importer{API: db, t: t, f: f}
			o := fx.s3Options(f, "import/")
			o.DB, o.Table, o.Import = imp, table, true
			o.Compression = s3out.Zstd
			rep, err := migrate.Run(testContext(t), o)
			if err != nil {
				t.Fatal(err)
			}
			if imp.req == nil {
				t.Fatal("ImportTable was not called")
			}
			r := imp.req
			if aws.ToString(r.S3BucketSource.S3Bucket) != bucket || aws.ToString(r.S3BucketSource.S3KeyPrefix) != "import/" ||
				r.InputFormat != types.InputFormatDynamodbJson || r.InputCompressionType != types.InputCompressionTypeZstd ||
				aws.ToString(r.TableCreationParameters.TableName) != table || len(r.TableCreationParameters.GlobalSecondaryIndexes) != 2 ||
				r.TableCreationParameters.BillingMode != types.BillingModePayPerRequest || aws.ToString(r.ClientToken) == "" {
				b, _ := json.Marshal(r)
				t.Errorf("ImportTable request: %s", b)
			}
			if i := rep.S3.Import; i == nil || i.Status != "COMPLETED" || i.ImportedItems != fx.total || i.TTL != "expiresAt" {
				t.Errorf("import report: %+v", i)
			}
			ttl, err := testenv.DynamoDBClient(endpoint).DescribeTimeToLive(testContext(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
			if err != nil || ttl.TimeToLiveDescription == nil || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "expiresAt" {
				t.Errorf("TTL: %+v, %v", ttl, err)
			}
			fx.plan.Table.TTL = ""
			verifyExact(t, fx, db, table)
		})
	}
}

// TestDirRefused: with a local directory (--to file://), --import is
// refused (ImportTable reads S3), and so are a checkpoint or rejects file
// under the prefix or named like its manifests, and a prefix holding a
// file; nothing is written.
func TestDirRefused(t *testing.T) {
	fx := personalization(t, testenv.Engines[0])
	f := newDirStore(t)
	ctx := testContext(t)
	refused := func(what string, o migrate.Options, want string) {
		t.Helper()
		if _, err := migrate.Run(ctx, o); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", what, err, want)
		}
	}
	o := fx.s3Options(f, "a/")
	o.Import = true
	refused("--import", o, "ImportTable reads its objects from S3")
	o = fx.s3Options(f, "a/")
	o.CheckpointPath = filepath.Join(f.bucket, "a", "ck.json")
	refused("a checkpoint under the prefix", o, "is under "+o.To.String())
	o = fx.s3Options(f, "a/")
	o.RejectsPath = filepath.Join(f.bucket, "a.remodel-manifest.json")
	refused("a rejects file named as the manifest", o, "is under "+o.To.String())
	if n := len(f.putCounts()); n != 0 {
		t.Errorf("%d files were written", n)
	}
	if err := os.MkdirAll(filepath.Join(f.bucket, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.bucket, "a", "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused("a prefix holding a file", fx.s3Options(f, "a/"), "already holds 1 objects (a/notes.txt")
	o = fx.s3Options(f, "a/")
	o.To.Bucket = filepath.Join(f.bucket, "missing")
	refused("a directory that does not exist", o, "does not exist")
}
