package s3out

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/klauspost/compress/zstd"
)

func TestS3Location(t *testing.T) {
	for in, want := range map[string]string{
		"s3://b/orders/":     "s3://b/orders/ b.orders.remodel-manifest.json",
		"s3://b/orders":      "s3://b/orders/ b.orders.remodel-manifest.json",
		"s3://b/a/b/":        "s3://b/a/b/ b.a/b.remodel-manifest.json",
		"s3://b/":            "error",
		"s3://b":             "error",
		"http://b/orders/":   "error",
		"s3://b/a//b/":       "error",
		"s3://b/orders/?x=1": "error",
	} {
		l, err := Parse(in)
		got := "error"
		if err == nil {
			got = l.String() + " " + l.Bucket + "." + l.ManifestKey()
			if strings.HasPrefix(l.ManifestKey(), l.Prefix) {
				t.Errorf("%s: the manifest %s is under the prefix", in, l.ManifestKey())
			}
		}
		if got != want {
			t.Errorf("Parse(%q) = %s (%v), want %s", in, got, err, want)
		}
	}
}

// TestS3EndpointFromEnv: a Store from the standard chain sends to
// AWS_ENDPOINT_URL_S3 with path-style addressing (a virtual-hosted request
// would go to bucket.127.0.0.1, which does not resolve), and an object
// above 16 MiB is uploaded in 8 MiB parts by the transfer manager, read
// back whole in ranges.
func TestS3EndpointFromEnv(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	faker := gofakes3.New(backend).Server()
	var mu sync.Mutex
	var parts, paths int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.URL.Query().Has("partNumber") {
			parts++
		}
		if strings.HasPrefix(r.URL.Path, "/bkt") {
			paths++
		}
		mu.Unlock()
		faker.ServeHTTP(w, r)
	}))
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL_S3", srv.URL)
	t.Setenv("AWS_REGION", "us-east-1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := Connect(ctx, Config{LoadOptions: []func(*config.LoadOptions) error{
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("k", "s", "")),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Where, srv.URL) {
		t.Errorf("Where = %s, want the endpoint", st.Where)
	}
	body := make([]byte, 20<<20)
	_, _ = rand.Read(body)
	if _, err := st.Upload(ctx, "bkt", "p/big", bytes.NewReader(body), int64(len(body)), "application/octet-stream"); err != nil {
		t.Fatal(err)
	}
	if parts != 3 {
		t.Errorf("%d parts uploaded, want 3 of at most 8 MiB", parts)
	}
	listed, err := st.List(ctx, "bkt", "p/")
	if err != nil || len(listed) != 1 || listed[0].Size != int64(len(body)) {
		t.Fatalf("listed %+v, %v", listed, err)
	}
	var w writerAt
	if n, err := st.Download(ctx, "bkt", "p/big", &w); err != nil || n != int64(len(body)) || !bytes.Equal(w.b, body) {
		t.Fatalf("downloaded %d bytes (%v), equal %v", n, err, bytes.Equal(w.b, body))
	}
	if ok, err := st.Exists(ctx, "bkt", "p/none"); ok || err != nil {
		t.Errorf("Exists of no object: %v, %v", ok, err)
	}
	if paths == 0 {
		t.Error("no request was path-style")
	}
}

type writerAt struct {
	mu sync.Mutex
	b  []byte
}

func (w *writerAt) WriteAt(p []byte, off int64) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if end := int(off) + len(p); end > len(w.b) {
		w.b = append(w.b, make([]byte, end-len(w.b))...)
	}
	copy(w.b[off:], p)
	return len(p), nil
}

// TestS3Object: an object's sizes and SHA-256 are those of what it holds,
// in both compressions.
func TestS3Object(t *testing.T) {
	for _, c := range []Compression{Gzip, Zstd} {
		o, err := NewObject(t.TempDir(), c)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Repeat(`{"Item":{"PK":{"S":"x"}}}`+"\n", 1000)
		if err := o.Write([]byte(lines), 1000); err != nil {
			t.Fatal(err)
		}
		if err := o.Finish(); err != nil {
			t.Fatal(err)
		}
		stored, _ := io.ReadAll(o.Body())
		sum := sha256.Sum256(stored)
		if o.Size != int64(len(stored)) || o.SHA256 != hex.EncodeToString(sum[:]) || o.Raw != int64(len(lines)) || o.Lines != 1000 {
			t.Errorf("%s: size %d sha %s raw %d lines %d; stored %d bytes", c, o.Size, o.SHA256, o.Raw, o.Lines, len(stored))
		}
		r, err := c.NewReader(bytes.NewReader(stored))
		if err != nil {
			t.Fatal(err)
		}
		back, _ := io.ReadAll(r)
		if string(back) != lines {
			t.Errorf("%s: read back %d bytes", c, len(back))
		}
		o.Close()
	}
}

// TestS3ObjectZstdWindow: a zstd object's frame says a window of at most
// ZstdWindow, so that each open object's encoder holds about that much
// (a reader limited to that window reads it back).
func TestS3ObjectZstdWindow(t *testing.T) {
	o, err := NewObject(t.TempDir(), Zstd)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	var lines bytes.Buffer
	for i := 0; lines.Len() < 4*ZstdWindow; i++ {
		fmt.Fprintf(&lines, `{"Item":{"PK":{"S":"user#%d"},"n":{"N":"%d"}}}`+"\n", i, i*7919)
	}
	if err := o.Write(lines.Bytes(), 0); err != nil {
		t.Fatal(err)
	}
	if err := o.Finish(); err != nil {
		t.Fatal(err)
	}
	d, err := zstd.NewReader(o.Body(), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(ZstdWindow))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	back, err := io.ReadAll(d)
	if err != nil {
		t.Fatalf("reading the object with a %d-byte window: %v", ZstdWindow, err)
	}
	if !bytes.Equal(back, lines.Bytes()) {
		t.Errorf("read back %d bytes, wrote %d", len(back), lines.Len())
	}
}
