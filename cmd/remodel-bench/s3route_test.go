package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
)

// TestWriteS3: the route's rows are printed beside the null sink with
// their ratio to it, and beside the null sink with the key check on with
// their ratio to that, marked against the target, and the compression's
// CPU apart.
func TestWriteS3(t *testing.T) {
	null := result{Name: "remodel -> null sink", Items: 100_000, Wall: 500 * time.Millisecond, CPU: time.Second, MaxRSS: 100 << 20}
	s := s3Result{checked: result{Name: "remodel -> null sink, key check on", Items: 100_000, Wall: time.Second, CPU: time.Second}, runs: []result{
		{Name: "remodel -> objects (local dir, gzip)", Items: 100_000, Wall: 1250 * time.Millisecond, CPU: 2 * time.Second, MaxRSS: 120 << 20},
		{Name: "remodel -> in-process S3 (gzip)", Items: 100_000, Wall: 2 * time.Second, CPU: 2 * time.Second, MaxRSS: 130 << 20},
	}, comp: map[s3out.Compression]float64{s3out.Gzip: 4.25}}
	var b strings.Builder
	writeS3(&b, s, null)
	out := b.String()
	for _, want := range []string{"0.40     0.80 ok", "0.25  0.50 BELOW", "gzip 4.2", "target >= 0.70", "key check on        100 000    1.00 s"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestPrintLarge: the large mode's lines are printed one row per size,
// with the peak RSS of the largest size over the smallest's, and --to's
// peak less its key collision check when the lines record it.
func TestPrintLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "large.jsonl")
	r := func(rss int64) result {
		return result{Items: 1, Wall: time.Second, CPU: time.Second, MaxRSS: rss << 20}
	}
	lines := `{"rows":1000000,"null":` + jsonOf(t, r(100)) + `,"dir":` + jsonOf(t, r(200)) + `,"verify":` + jsonOf(t, r(300)) + `,"dir_key_check_bytes":` + fmt.Sprint(20<<20) + `}
{"rows":3000000,"null":` + jsonOf(t, r(110)) + `,"dir":` + jsonOf(t, r(200)) + `,"verify":` + jsonOf(t, r(600)) + `,"dir_key_check_bytes":` + fmt.Sprint(40<<20) + `}
`
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := printLarge(p, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"1 000 000 |", "3 000 000 |", "null sink 1.10, --to file:// 1.00, verify --files 2.00", "300 MiB",
		"200 MiB   20 MiB  180 MiB", "200 MiB   40 MiB  160 MiB", "--to less its key collision check: 0.89"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

func jsonOf(t *testing.T, r result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
