package s3out

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDirLocation: file:///abs/dir/prefix/ names the directory that holds
// the prefix's directory (Bucket) and the prefix; the manifest lies beside
// the prefix's directory, and the URLs are file:// ones. Relative paths,
// hosts, the root and unclean paths are refused.
func TestDirLocation(t *testing.T) {
	for in, want := range map[string]string{
		"file:///tmp/x/orders/":          "file:///tmp/x/orders/ /tmp/x orders/ file:///tmp/x/orders.remodel-manifest.json",
		"file:///tmp/x/orders":           "file:///tmp/x/orders/ /tmp/x orders/ file:///tmp/x/orders.remodel-manifest.json",
		"file://localhost/tmp/orders/":   "file:///tmp/orders/ /tmp orders/ file:///tmp/orders.remodel-manifest.json",
		"file:///orders/":                "file:///orders/ / orders/ file:///orders.remodel-manifest.json",
		"file:///":                       "error",
		"file://tmp/orders/":             "error",
		"file:tmp/orders/":               "error",
		"file:///tmp/../orders/":         "error",
		"file:///tmp/./orders/":          "error",
		"file:///tmp//orders/":           "error",
		"file:///tmp/orders/?x=1":        "error",
		"file:///tmp/orders/#f":          "error",
		"file://user@localhost/tmp/x/o/": "error",
	} {
		l, err := Parse(in)
		got := "error"
		if err == nil {
			if !l.Dir {
				t.Errorf("%s: not a directory", in)
			}
			got = l.String() + " " + l.Bucket + " " + l.Prefix + " " + l.ManifestURL()
		}
		if got != want {
			t.Errorf("Parse(%q) = %s (%v), want %s", in, got, err, want)
		}
	}
}

// TestDir: Dir writes objects whole under the prefix's directory (created
// as needed), lists them by key (every level, and the manifests beside the
// prefix by their own prefix), reads them back, and leaves nothing under
// the prefix of a write that failed; a bucket directory that does not
// exist is an error, a prefix directory that does not, an empty listing.
func TestDir(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	var d Store = Dir{}
	keys := func(prefix string) []string {
		t.Helper()
		l, err := d.List(ctx, root, prefix)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range l {
			out = append(out, o.Key)
		}
		slices.Sort(out)
		return out
	}
	if got := keys("orders/"); len(got) != 0 {
		t.Errorf("an empty directory lists %v", got)
	}
	if _, err := d.List(ctx, filepath.Join(root, "nope"), "orders/"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a missing bucket directory: %v", err)
	}
	body := "0123456789"
	etag, err := d.Upload(ctx, root, "orders/a.json.gz", strings.NewReader(body), int64(len(body)), "application/gzip")
	if err != nil || etag == "" {
		t.Fatal(etag, err)
	}
	if _, err := d.Upload(ctx, root, "orders/sub/b.json.gz", strings.NewReader("x"), 1, ""); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(ctx, root, "orders.remodel-manifest.json", []byte("{}\n"), "application/json"); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(ctx, root, "orders2/c.json.gz", []byte("y"), ""); err != nil {
		t.Fatal(err)
	}
	if got, want := keys("orders/"), []string{"orders/a.json.gz", "orders/sub/b.json.gz"}; !slices.Equal(got, want) {
		t.Errorf("orders/ lists %v, want %v", got, want)
	}
	if got, want := keys("orders."), []string{"orders.remodel-manifest.json"}; !slices.Equal(got, want) {
		t.Errorf("orders. lists %v, want %v", got, want)
	}
	l, _ := d.List(ctx, root, "orders/a")
	if len(l) != 1 || l[0].Size != int64(len(body)) || l[0].ETag != etag {
		t.Errorf("listed %+v, want %d bytes, ETag %s", l, len(body), etag)
	}
	if b, err := d.Get(ctx, root, "orders/a.json.gz"); err != nil || string(b) != body {
		t.Errorf("Get: %q, %v", b, err)
	}
	f, err := os.CreateTemp(t.TempDir(), "dl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := d.Download(ctx, root, "orders/a.json.gz", f); err != nil || n != int64(len(body)) {
		t.Errorf("Download: %d, %v", n, err)
	}
	if b, _ := os.ReadFile(f.Name()); string(b) != body {
		t.Errorf("downloaded %q", b)
	}
	if _, err := d.Get(ctx, root, "orders/none"); err == nil {
		t.Error("Get of a missing file")
	}
	// A write that fails (the body ends early) leaves the object as it was
	// and nothing under the prefix.
	if _, err := d.Upload(ctx, root, "orders/a.json.gz", &failing{}, 100, ""); err == nil {
		t.Error("a failing body was stored")
	}
	if _, err := d.Upload(ctx, root, "orders/d.json.gz", strings.NewReader("short"), 100, ""); err == nil {
		t.Error("a short body was stored")
	}
	if b, _ := d.Get(ctx, root, "orders/a.json.gz"); string(b) != body {
		t.Errorf("a failed write changed the object: %q", b)
	}
	if got, want := keys("orders/"), []string{"orders/a.json.gz", "orders/sub/b.json.gz"}; !slices.Equal(got, want) {
		t.Errorf("after failed writes orders/ lists %v, want %v", got, want)
	}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), partial) {
			t.Errorf("a failed write left %s", e.Name())
		}
	}
	// Which paths are the route's.
	loc := Location{Bucket: root, Prefix: "orders/", Dir: true}
	for p, want := range map[string]bool{
		filepath.Join(root, "orders", "ck.json"):               true,
		filepath.Join(root, "orders"):                          true,
		filepath.Join(root, "orders.remodel-manifest.json"):    true,
		filepath.Join(root, "orders.shard-1-of-2.remodel-man"): true,
		filepath.Join(root, "ordersX", "ck.json"):              false,
		filepath.Join(root, "ck.json"):                         false,
		filepath.Join(root, "orders-ck.json"):                  false,
	} {
		if got := UnderPrefix(loc, p); got != want {
			t.Errorf("UnderPrefix(%s) = %v", p, got)
		}
	}
}

type failing struct{}

func (*failing) Read([]byte) (int, error) { return 0, errors.New("broken") }
