package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records the failures Check reports
// instead of failing (Check returns after each).
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestCheck(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("testdata/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "sub", "a.txt"), []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, got string
		fail      bool
	}{
		{"sub/a.txt", "same\n", false},
		{"sub/a.txt", "other\n", true},
		{"missing.txt", "x", true},
	} {
		r := &recorder{TB: t}
		Check(r, c.name, []byte(c.got))
		if r.failed != c.fail {
			t.Errorf("Check(%s, %q) failed %v, want %v", c.name, c.got, r.failed, c.fail)
		}
	}
	*update = true
	defer func() { *update = false }()
	r := &recorder{TB: t}
	Check(r, "new/b.txt", []byte("written\n"))
	if b, err := os.ReadFile("testdata/new/b.txt"); r.failed || string(b) != "written\n" {
		t.Errorf("-update: %q, %v, failed %v", b, err, r.failed)
	}
}

func TestCheckNoStale(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("testdata/cases", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.yaml", "a.golden", "b.golden"} {
		if err := os.WriteFile(filepath.Join("testdata", "cases", f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &recorder{TB: t}
	CheckNoStale(r, "cases", ".yaml")
	if !r.failed {
		t.Error("CheckNoStale passed with b.golden and no b.yaml")
	}
	if err := os.Remove(filepath.Join("testdata", "cases", "b.golden")); err != nil {
		t.Fatal(err)
	}
	r = &recorder{TB: t}
	CheckNoStale(r, "cases", ".yaml")
	if r.failed {
		t.Error("CheckNoStale failed with every golden file's case there")
	}
}
