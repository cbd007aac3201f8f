package document_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// chromium finds headless Chromium: $REMODEL_TEST_CHROMIUM, or chromium on
// the PATH (scripts/chromium.sh fetch installs Debian's package). Without
// it the test is skipped, or fails under REMODEL_REQUIRE_SERVICES=1.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("REMODEL_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := "no Chromium: set REMODEL_TEST_CHROMIUM or run scripts/chromium.sh fetch"
	if testenv.Require() {
		t.Fatal(msg + ", and REMODEL_REQUIRE_SERVICES=1")
	}
	t.Skip(msg)
	return ""
}

// browse runs headless Chromium on a local file with the given flags and
// returns its stdout. A profile of its own in a temporary folder keeps runs
// apart; --no-sandbox lets it run as root (the test machines do).
func browse(t *testing.T, browser, file string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--user-data-dir=" + t.TempDir()}, args...)
	all = append(all, "file://"+file)
	cmd := exec.CommandContext(ctx, browser, all...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", browser, strings.Join(all, " "), err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// TestHTMLInBrowser opens the HTML document of the personalization example,
// with the analysis and the cost (preview --document --analyze), in
// headless Chromium: the DOM the browser builds has every grid, every ERD
// table and every access pattern, with the rows the items make, and the
// analysis's and the cost's tables with theirs; a screenshot is taken (its
// path is in the log). The file must not refer to anything outside itself.
func TestHTMLInBrowser(t *testing.T) {
	browser := chromium(t)
	dsn, _ := personalization(t, "postgres")
	html := writeDocument(t, dsn, ".html", "3", "--analyze", "--readers", "1", "--rate-limit", "8000", "--traffic", "testdata/traffic.yaml")
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:|//)[^"]*"|@import|url\(`).Find(html); m != nil {
		t.Errorf("the HTML refers to something outside itself: %s", m)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "personalization.html")
	if err := os.WriteFile(file, html, 0o644); err != nil {
		t.Fatal(err)
	}

	dom := string(browse(t, browser, file, "--dump-dom"))
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllStringIndex(dom, -1)) }
	// The browser's own DOM: it adds the tbody the file leaves out, so the
	// counts below are of what Chromium parsed, not of the file's text.
	if n := strings.Count(string(html), "<tbody"); n != 0 {
		t.Fatalf("the file itself has %d tbody elements; the check below needs none", n)
	}
	tables, tbodies := count(`<table[ >]`), count(`<tbody>`)
	if tables == 0 || tbodies != tables {
		t.Errorf("the DOM has %d tables and %d tbody elements: not parsed by a browser?", tables, tbodies)
	}
	checks := []struct {
		what string
		re   string
		want int
	}{
		{"example data grids (table, GSI1, GSI2)", `<table class="grid"`, 3},
		{"ERD tables", `<table class="erd-table"`, 5},
		{"relationships", `<table class="relationships"`, 1},
		{"entity attribute tables", `<table class="entity-attributes"`, 5},
		{"access pattern sections", `<h3 id="pattern-`, 6},
		{"partition key cells (table: the 3 item collections, GSI1: 13 partitions, GSI2: 1)", `<td class="pk"`, 17},
		{"items in the grids (the collections USER#1, SERVICE#blog and SUBSCRIBE#blog#article#3: 13 in the table and in GSI1, 5 in GSI2)", `<td class="entity">`, 31},
		{"sections (5 built in, the analysis, the cost)", `<section id=`, 7},
	}
	for _, c := range checks {
		if got := count(c.re); got != c.want {
			t.Errorf("%s: the DOM has %d of %s, want %d", c.what, got, c.re, c.want)
		}
	}
	// The analysis's and the cost's tables, counted in their own section.
	for _, c := range []struct {
		in, what, re string
		want         int
	}{
		{"analysis", "the items table", `<table class="analysis-items"`, 1},
		{"analysis", "rows of the items table (5 entities, all)", `<tr><td>(user|service|personal|subscribe|subscribe_user|all)</td><td>`, 6},
		{"analysis", "no rejected rows, no table of them", `<table class="analysis-rejects"`, 0},
		{"analysis", "the table and indexes", `<table class="analysis-indexes"`, 1},
		{"analysis", "rows of table and indexes", `<tr><td>(personalization|GSI1|GSI2)</td><td>(table|global)</td>`, 3},
		{"analysis", "partitions that stand out: GSI1's only (the table's are even, GSI2 has one)", `<table class="analysis-partitions"`, 1},
		{"analysis", "its rows (5 by items, 5 by bytes, 5 by write units)", `<tr><td>(items|bytes|write units)</td>`, 15},
		{"analysis", "none stands out in the table and in GSI2", `<p>No partition stands out`, 2},
		{"analysis", "warnings (1 on GSI1, 2 on GSI2)", `<li>index GSI[12]: `, 3},
		{"cost", "the load and storage table", `<table class="cost"`, 1},
		{"cost", "its rows", `<tr><td>(load|storage), `, 5},
		{"cost", "the traffic table", `<table class="cost-traffic"`, 1},
		{"cost", "the priced patterns and their sum", `<tr><td>(findPersonalByUserIdAndService|findUserBySubscribeService|all)</td>`, 3},
	} {
		section := regexp.MustCompile(`(?s)<section id="` + c.in + `">.*?</section>`).FindString(dom)
		if got := len(regexp.MustCompile(c.re).FindAllStringIndex(section, -1)); got != c.want {
			t.Errorf("section %s: %s: the DOM has %d of %s, want %d", c.in, c.what, got, c.re, c.want)
		}
	}
	for _, s := range []string{"USER#1", "SUBSCRIBE_USER", "begins_with(SK, PERSONAL#{service}#)", "SELECT * FROM personal WHERE user_id = {user_id}",
		`<a href="#analysis">Analysis</a><a href="#cost">Cost</a>`, "one partition key value, SUBSCRIBE_USER", "as of 2024-11-01"} {
		if !strings.Contains(dom, strings.ReplaceAll(s, "&", "&amp;")) {
			t.Errorf("the DOM lacks %q", s)
		}
	}

	shot := filepath.Join(dir, "personalization.png")
	browse(t, browser, file, "--screenshot="+shot, "--window-size=1400,2400", "--hide-scrollbars")
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 20000 {
		t.Errorf("the screenshot %s is not a PNG of a rendered page (%d bytes)", shot, len(png))
	}
	if keep := os.Getenv("REMODEL_TEST_ARTIFACTS"); keep != "" {
		_ = os.MkdirAll(keep, 0o755)
		for _, f := range []string{file, shot} {
			if b, err := os.ReadFile(f); err == nil {
				_ = os.WriteFile(filepath.Join(keep, filepath.Base(f)), b, 0o644)
			}
		}
		t.Logf("screenshot and HTML kept in %s", keep)
	} else {
		t.Logf("screenshot: %s (set REMODEL_TEST_ARTIFACTS=DIR to keep it)", shot)
	}
}
