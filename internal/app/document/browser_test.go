package document_test

import (
	"bytes"
	"context"
	"encoding/json"
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
		{"sections (6 built in, the analysis, the cost)", `<section id=`, 8},
		{"data library files: the table of each format's command (none written)", `<table class="library-commands"`, 1},
		{"pictures (the ERD, 6 access patterns, partitions, sizes, cost)", `<svg `, 10},
		{"the ERD's boxes", `<g class="erd-box erd-mapped"`, 5},
		{"the ERD's foreign keys", `<g class="erd-fk"`, 5},
		{"the items the patterns return, highlighted (1 user, 1 service, 3 personal, 1, 1 subscribe, 2 subscribe_user)", `<g class="pat-item pat-hit"`, 9},
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
		{"cost", "its rows (load three ways, bulk put not priced, storage two ways)", `<tr><td>(load|storage), `, 6},
		{"analysis", "partitions chart: the table, GSI1, GSI2", `<g class="chart-index"`, 3},
		{"analysis", "GSI1's hot partition (USER#, 14.6 %) and the others that stand out, red", `<rect [^>]*class="bar hot"`, 5},
		{"analysis", "sizes chart: one bar pair a entity", `<g class="entity-size"`, 5},
		{"cost", "routes: on-demand, provisioned, S3 import", `<g class="route"`, 3},
		{"cost", "the cheapest route, green", `<rect [^>]*class="bar good"`, 1},
		{"cost", "the priced patterns", `<g class="traffic"`, 2},
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

	// The pictures as the browser lays them out: every SVG and every
	// shape in it has a size.
	for _, svg := range layout(t, browser, dir, "layout.html", html) {
		if svg.W <= 0 || svg.H <= 0 || svg.Shapes == 0 || svg.Empty > 0 {
			t.Errorf("the SVG %s is laid out %gx%g with %d shapes, %d of them empty", svg.Class, svg.W, svg.H, svg.Shapes, svg.Empty)
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

// layoutScript measures, in the browser, every SVG of the page (its box and
// its shapes' boxes) and the first SVG text holding Korean: whether its
// glyphs are drawn (two different syllables drawn alike are the missing
// glyph's box, tofu). It writes the figures as JSON into the page, which
// --dump-dom then prints.
const layoutScript = `<script>
(function () {
  var out = {svgs: [], korean: null};
  document.querySelectorAll("svg").forEach(function (svg) {
    var r = svg.getBoundingClientRect(), shapes = 0, empty = 0;
    svg.querySelectorAll("rect, path, line, text, circle").forEach(function (el) {
      var b = el.getBBox();
      if (b.width > 0 || b.height > 0) { shapes++; } else { empty++; }
    });
    out.svgs.push({class: svg.getAttribute("class"), w: r.width, h: r.height, shapes: shapes, empty: empty});
  });
  var texts = document.querySelectorAll("svg text");
  for (var i = 0; i < texts.length; i++) {
    var m = /[\uac00-\ud7a3]{2}/.exec(texts[i].textContent);
    if (!m) { continue; }
    var font = getComputedStyle(texts[i]).fontFamily;
    var draw = function (ch) {
      var c = document.createElement("canvas");
      c.width = 64; c.height = 64;
      var g = c.getContext("2d");
      g.font = "48px " + font;
      g.fillText(ch, 4, 52);
      return Array.prototype.join.call(g.getImageData(0, 0, 64, 64).data, ",");
    };
    out.korean = {text: texts[i].textContent, syllables: m[0], width: texts[i].getComputedTextLength(),
      distinct: draw(m[0][0]) !== draw(m[0][1]), blank: draw(m[0][0]) === draw(" ")};
    break;
  }
  var pre = document.createElement("pre");
  pre.id = "remodel-layout";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

type svgLayout struct {
	Class  string
	W, H   float64
	Shapes int
	Empty  int
}

type pageLayout struct {
	SVGs   []svgLayout
	Korean *struct {
		Text, Syllables string
		Width           float64
		Distinct, Blank bool
	}
}

// layoutOf opens a copy of the page with layoutScript in headless Chromium
// and returns what the script measured.
func layoutOf(t *testing.T, browser, dir, name string, html []byte) pageLayout {
	t.Helper()
	file := filepath.Join(dir, name)
	page := bytes.Replace(html, []byte("</body>"), []byte(layoutScript+"</body>"), 1)
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	dom := browse(t, browser, file, "--dump-dom")
	m := regexp.MustCompile(`<pre id="remodel-layout">(.*?)</pre>`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the layout script wrote nothing into the page")
	}
	var l pageLayout
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(m[1]), "&quot;", `"`)), &l); err != nil {
		t.Fatalf("the layout script's %s: %v", m[1], err)
	}
	if len(l.SVGs) == 0 {
		t.Errorf("the browser laid out no SVG")
	}
	return l
}

func layout(t *testing.T, browser, dir, name string, html []byte) []svgLayout {
	t.Helper()
	return layoutOf(t, browser, dir, name, html).SVGs
}

// TestKoreanInBrowser opens the document of the personalization example's
// service 날씨 Weather (its collection, SERVICE#weather) in headless
// Chromium: the access pattern findServiceByService is drawn on it, with
// the service's display name, and the Korean syllables are drawn as
// glyphs, not as the missing glyph's box (the style sheet's font stack
// finds the system's CJK font; scripts/chromium.sh fetch installs one). A
// screenshot of the page is taken.
func TestKoreanInBrowser(t *testing.T) {
	browser := chromium(t)
	dsn, _ := personalization(t, "postgres")
	html := writeDocument(t, dsn, ".html", "3", "--partition", "SERVICE#weather")
	dir := t.TempDir()
	file, shot := filepath.Join(dir, "weather.html"), filepath.Join(dir, "weather.png")
	defer func() {
		if keep := os.Getenv("REMODEL_TEST_ARTIFACTS"); keep != "" {
			_ = os.MkdirAll(keep, 0o755)
			for _, f := range []string{file, shot} {
				if b, err := os.ReadFile(f); err == nil {
					_ = os.WriteFile(filepath.Join(keep, filepath.Base(f)), b, 0o644)
				}
			}
		}
	}()
	l := layoutOf(t, browser, dir, "weather.html", html)
	for _, svg := range l.SVGs {
		if svg.W <= 0 || svg.H <= 0 || svg.Shapes == 0 {
			t.Errorf("the SVG %s is laid out %gx%g with %d shapes", svg.Class, svg.W, svg.H, svg.Shapes)
		}
	}
	k := l.Korean
	switch {
	case k == nil:
		t.Fatalf("no SVG text holds Korean (the service's displayName 날씨 Weather)")
	case !strings.Contains(k.Text, "날씨 Weather"):
		t.Errorf("the SVG text with Korean is %q, want the display name 날씨 Weather", k.Text)
	case k.Blank || !k.Distinct:
		t.Errorf("the Korean syllables %s of %q are drawn as tofu (blank %v, distinct %v): no CJK font in the style sheet's stack (fc-list :lang=ko; scripts/chromium.sh fetch installs fonts-nanum)", k.Syllables, k.Text, k.Blank, k.Distinct)
	case k.Width < textWidthAtLeast(k.Text):
		t.Errorf("the text %q is %g pixels wide: narrower than its glyphs", k.Text, k.Width)
	}
	browse(t, browser, file, "--screenshot="+shot, "--window-size=1200,2400", "--hide-scrollbars")
	if png, err := os.ReadFile(shot); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("no screenshot %s: %v", shot, err)
	}
}

// textWidthAtLeast is a floor for a text's width at the diagrams' 11
// pixels: 3 pixels a character.
func textWidthAtLeast(s string) float64 { return 3 * float64(len([]rune(s))) }
