package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionOf: a build from a source tree names its commit, the commit's
// time and whether the tree had changes, beside the version; a build
// without VCS information (go test, go install module@version) does not.
func TestVersionOf(t *testing.T) {
	vcs := func(kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/remodel-dev/remodel", Version: "(devel)"}}
		for i := 0; i+1 < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	tests := []struct {
		name, version string
		info          *debug.BuildInfo
		want          string
	}{
		{"no build info", "dev", nil, "dev (mapping format version 1)"},
		{"no VCS", "dev", vcs(), "dev (mapping format version 1)"},
		{"clean tree", "dev", vcs("vcs", "git", "vcs.revision", "3e250ebc1a2b4c5d6e7f8091a2b3c4d5e6f70819", "vcs.time", "2026-11-26T03:28:57Z", "vcs.modified", "false"),
			"dev (commit 3e250ebc1a2b of 2026-11-26T03:28:57Z; mapping format version 1)"},
		{"dirty tree", "dev", vcs("vcs.revision", "3e250ebc1a2b4c5d6e7f8091a2b3c4d5e6f70819", "vcs.time", "2026-11-26T03:28:57Z", "vcs.modified", "true"),
			"dev (commit 3e250ebc1a2b of 2026-11-26T03:28:57Z, dirty; mapping format version 1)"},
		{"a release built from its tag", "v1.4.0", vcs("vcs.revision", "abc", "vcs.modified", "false"),
			"v1.4.0 (commit abc; mapping format version 1)"},
		{"module version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3 (mapping format version 1)"},
		{"a tag's module version with its commit", "dev", func() *debug.BuildInfo {
			i := vcs("vcs.revision", "3e250ebc1a2b4c5d6e7f8091a2b3c4d5e6f70819", "vcs.modified", "true")
			i.Main.Version = "v1.4.0+dirty"
			return i
		}(), "v1.4.0 (commit 3e250ebc1a2b, dirty; mapping format version 1)"},
		{"a pseudo-version says no more than the commit", "dev", func() *debug.BuildInfo {
			i := vcs("vcs.revision", "3e250ebc1a2b4c5d6e7f8091a2b3c4d5e6f70819", "vcs.time", "2026-11-26T03:28:57Z", "vcs.modified", "true")
			i.Main.Version = "v0.0.0-20261126032857-3e250ebc1a2b+dirty"
			return i
		}(), "dev (commit 3e250ebc1a2b of 2026-11-26T03:28:57Z, dirty; mapping format version 1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionOf(tt.version, tt.info); got != tt.want {
				t.Errorf("versionOf = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestVersionOfSourceBuild: remodel built with go build from a checkout of
// this tree's HEAD prints that commit, without "dirty"; with a tracked file
// changed, "dirty". The checkout is a clone of its own, so that the files
// other packages' tests make in this tree while it builds cannot change
// what go sees.
func TestVersionOfSourceBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds remodel")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	git := func(dir string, args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
		if err != nil {
			t.Skipf("git %s: %v (not a git checkout)", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	head := git(root, "rev-parse", "HEAD")
	clone := filepath.Join(t.TempDir(), "src")
	if out, err := exec.Command("git", "clone", "-q", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	git(clone, "checkout", "-q", head)
	version := func() string {
		bin := filepath.Join(t.TempDir(), "remodel")
		build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./cmd/remodel") // whatever GOFLAGS says
		build.Dir = clone
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	want := regexp.MustCompile(`^remodel dev \(commit ` + head[:12] + ` of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ(, dirty)?; mapping format version 1\)\n$`)
	clean := version()
	if !want.MatchString(clean) || strings.Contains(clean, ", dirty") {
		t.Fatalf("version of a clean source build: %q, want it to match %s without dirty", clean, want)
	}
	main := filepath.Join(clone, "cmd", "remodel", "main.go")
	b, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, append(b, "\n// changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if dirty := version(); !want.MatchString(dirty) || !strings.Contains(dirty, ", dirty") {
		t.Errorf("version of a build with a tracked file changed: %q, want it to match %s with dirty", dirty, want)
	}
}
