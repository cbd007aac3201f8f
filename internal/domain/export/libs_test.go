package export_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/internal/domain/export"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

const personalizationMapping = "../../../examples/personalization/mapping.yaml"

// TestLibraryExportsGolden exports the personalization example for each
// library (golden files), and a mapping with what the libraries cannot
// express (a desc and an iso formatter, a pad on a decimal, an embed, a
// conditional key): each is named in the output and on stderr, one line
// each, and the entity, index or pattern left out.
func TestLibraryExportsGolden(t *testing.T) {
	dsn, db := personalization(t)
	for _, c := range []struct{ format, file string }{
		{"electrodb", "personalization.electrodb.ts"},
		{"onetable", "personalization.onetable.json"},
		{"dynamodb-mcp", "personalization.dynamodb-mcp.json"},
	} {
		code, out, errOut := remodel(t, "export", "--source", dsn, "-m", personalizationMapping, "--output", c.format)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.format, code, errOut)
		}
		golden.Check(t, c.file, []byte(strings.ReplaceAll(out, db, "DB")))
		golden.Check(t, strings.TrimSuffix(c.file, filepath.Ext(c.file))+".stderr", []byte(errOut))
	}
	// With every marker (table.markers), an ElectroDB version given, an
	// entity attribute that is not OneTable's type field, and an index that
	// projects no marker: ElectroDB checks ownership (but on that index),
	// OneTable's typeField is _type, the fixed attributes have defaults.
	marked := testenv.EditedFile(t, personalizationMapping,
		"entity_attribute: _type", "entity_attribute: kind\n  markers: [{electrodb: {version: \"2\"}}, onetable, version]",
		"{name: GSI1, pk: SK, sk: PK}", "{name: GSI1, pk: SK, sk: PK, projection: KEYS_ONLY}")
	for _, c := range []struct{ format, file string }{
		{"electrodb", "personalization.markers.electrodb.ts"},
		{"onetable", "personalization.markers.onetable.json"},
		{"dynamodb-mcp", "personalization.markers.dynamodb-mcp.json"},
	} {
		code, out, errOut := remodel(t, "export", "--source", dsn, "-m", marked, "--output", c.format)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.format, code, errOut)
		}
		golden.Check(t, c.file, []byte(strings.ReplaceAll(strings.ReplaceAll(out, db, "DB"), marked, "mapping.yaml")))
	}
	// What the libraries cannot express.
	odd := testenv.EditedFile(t, personalizationMapping,
		`sk: "PERSONAL#{service}#{setting_type}"`, `sk: "PERSONAL#{service}#{updated_at|desc}"`,
		`pk: "SERVICE#{service}"`, `pk: "SERVICE#{service|upper}"`,
		`set: {data: SUBSCRIBE_USER}`, `set: {data: {value: SUBSCRIBE_USER, when: "service <> 'mail'"}}`,
		`rename: {created_at: createdAt, is_active: isActive}`, "rename: {created_at: createdAt, is_active: isActive}\n    embed:\n      prefs: {from: personal, on: user_id, attributes: {include: [service, setting_type]}}")
	for _, c := range []struct{ format, want string }{
		{"electrodb", "entity personal is left out: its table key SK (PERSONAL#{service}#{updated_at|desc}): formatter desc has no ElectroDB equivalent"},
		{"onetable", "entity service is left out: its table key PK (SERVICE#{service|upper}): formatter upper has no OneTable equivalent"},
		{"dynamodb-mcp", "entity personal is left out: its table key SK (PERSONAL#{service}#{updated_at|desc}): formatter desc has no equivalent in schema.json's templates ({field} only)"},
	} {
		code, out, errOut := remodel(t, "export", "--source", dsn, "-m", odd, "--output", c.format)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.format, code, errOut)
		}
		golden.Check(t, "odd."+c.format+".stderr", []byte(errOut))
		notes := outputNotes(t, c.format, out)
		for _, want := range []string{c.want, "entity user: attribute prefs holds the rows of public.personal embedded in the item", "entity subscribe_user: key data of index GSI2 is written by remodel only when service <> 'mail'"} {
			if !strings.Contains(errOut, "remodel: export --output "+c.format+": not expressed: "+want) {
				t.Errorf("%s: stderr does not say %q:\n%s", c.format, want, errOut)
			}
			if !strings.Contains(notes, want) {
				t.Errorf("%s: the output does not say %q:\n%s", c.format, want, notes)
			}
		}
	}
	// No source: refused.
	code, _, errOut := remodel(t, "export", "-m", personalizationMapping, "--output", "onetable", "--source", "")
	if code != 2 || !strings.Contains(errOut, "no source: --output onetable") {
		t.Errorf("onetable without a source: exit %d, %q", code, errOut)
	}
}

// outputNotes are the notes an export writes in its output, one a line:
// the module's comment, the schemas' notExpressed / not_expressed.
func outputNotes(t *testing.T, format, out string) string {
	t.Helper()
	var lines []string
	switch format {
	case "electrodb":
		for _, l := range strings.Split(out, "\n") {
			switch {
			case strings.HasPrefix(l, "//   - "):
				lines = append(lines, strings.TrimPrefix(l, "//   - "))
			case strings.HasPrefix(l, "//     ") && len(lines) > 0:
				lines[len(lines)-1] += " " + strings.TrimPrefix(l, "//     ")
			}
		}
	case "onetable":
		var s export.OneTableSchema
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		lines = s.Extensions.Remodel.NotExpressed
	case "dynamodb-mcp":
		var s export.MCPSchema
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		lines = s.Remodel.NotExpressed
	}
	return strings.Join(lines, "\n")
}

// exportLibs is the folder of the libraries scripts/export-libs.sh fetches,
// and node; the test is skipped without them (failed when
// REMODEL_REQUIRE_SERVICES=1).
func exportLibs(t *testing.T) (dir, node string) {
	t.Helper()
	dir = os.Getenv("REMODEL_TEST_EXPORT_LIBS")
	node, err := exec.LookPath("node")
	if dir == "" || err != nil {
		msg := "REMODEL_TEST_EXPORT_LIBS is not set or node is missing: skipping the libraries' own reading (scripts/export-libs.sh fetch; run `make test`)"
		if testenv.Require() {
			t.Fatal(msg + ", and REMODEL_REQUIRE_SERVICES=1")
		}
		t.Skip(msg)
	}
	return dir, node
}

type libResult struct {
	Items json.RawMessage `json:"items"`
	Error string          `json:"error"`
}

type libRun struct {
	TypeErrors []string    `json:"typeErrors"`
	ElectroDB  []libResult `json:"electrodb"`
	OneTable   []libResult `json:"onetable"`
	Writes     []libResult `json:"writes"`
	Gets       struct {
		ElectroDB []libResult `json:"electrodb"`
		OneTable  []libResult `json:"onetable"`
	} `json:"gets"`
}

type libCall struct {
	Pattern string         `json:"pattern"`
	Params  map[string]any `json:"params"`
}

// runLibs runs testdata/libs/run.mjs: the calls, then the gets.
func runLibs(t *testing.T, dir, node, endpoint, table, electro, onetable string, calls []libCall, gets []libGet, typecheck bool) libRun {
	t.Helper()
	job, _ := json.Marshal(map[string]any{"endpoint": endpoint, "table": table, "electrodb": electro, "onetable": onetable, "calls": calls, "gets": gets, "typecheck": typecheck})
	jf := filepath.Join(t.TempDir(), "job.json")
	if err := os.WriteFile(jf, job, 0o644); err != nil {
		t.Fatal(err)
	}
	return runJob(t, dir, node, jf)
}

// runJob runs testdata/libs/run.mjs on the job file jf.
func runJob(t *testing.T, dir, node, jf string) libRun {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("testdata", "libs", "run.mjs"))
	cmd := exec.Command(node, script, dir, jf)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var r libRun
	if jerr := json.Unmarshal(out, &r); err != nil || jerr != nil {
		t.Fatalf("run.mjs: %v, %v\n%s\n%s", err, jerr, out, stderr.String())
	}
	return r
}

// TestLibrariesReadTheMigratedTable migrates the personalization example
// (both engines) into DynamoDB Local, exports the ElectroDB module and the
// OneTable schema, and runs every access pattern through ElectroDB and
// OneTable themselves for sampled parameter values: each returns exactly
// the rows the pattern's SQL returns (by their key columns), and exactly
// the items (every attribute a library returns, in order) that the
// pattern's own Query returns, as verify runs it; and a get by key of up
// to 3 rows of every entity returns exactly the item DynamoDB's GetItem
// returns at the row's key. The ElectroDB module type-checks against
// ElectroDB's types. An export broken on purpose (a prefix, a pad width)
// fails the comparison, and the gets' where a table key is broken.
func TestLibrariesReadTheMigratedTable(t *testing.T) {
	dir, node := exportLibs(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	for _, engine := range []string{"postgres", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			var dsn string
			if engine == "postgres" {
				dsn = testenv.Postgres(t)
			} else {
				dsn = testenv.MySQL(t)
			}
			testenv.LoadExample(t, engine, dsn, "../../../examples/personalization")
			endpoint := testenv.DynamoDB(t)
			db, table := testenv.DynamoDBTable(t)
			if code, out, errOut := remodel(t, "migrate", "--source", dsn, "-m", personalizationMapping, "--endpoint", endpoint, "--table", table, "--create-table", "--rejects", filepath.Join(t.TempDir(), "rejects.jsonl"), "--checkpoint", filepath.Join(t.TempDir(), "checkpoint.json")); code != 0 {
				t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
			}
			electro, onetable := exportLibs2(t, dsn, personalizationMapping, table)
			ctx := context.Background()
			p := compile(t, ctx, dsn, personalizationMapping)
			calls, want := samplePatterns(t, ctx, p, engine, dsn, db, table)
			if len(calls) < len(p.AccessPatterns) {
				t.Fatalf("%d samples for %d access patterns", len(calls), len(p.AccessPatterns))
			}
			gets, wantGets := sampleGets(t, ctx, p, dsn, db, table)
			r := runLibs(t, dir, node, endpoint, table, electro, onetable, calls, gets, true)
			if len(r.TypeErrors) > 0 {
				t.Errorf("the ElectroDB module does not type-check:\n%s", strings.Join(r.TypeErrors, "\n"))
			}
			for lib, results := range map[string][]libResult{"ElectroDB": r.ElectroDB, "OneTable": r.OneTable} {
				if len(results) != len(calls) {
					t.Fatalf("%s: %d results for %d calls", lib, len(results), len(calls))
				}
				for i, c := range calls {
					if msg := compareLib(lib, want[i], results[i]); msg != "" {
						t.Errorf("%s %s %v: %s", lib, c.Pattern, c.Params, msg)
					}
				}
			}
			// The export leaves no entity out: every get reads its item.
			for lib, n := range checkGets(t, r, gets, wantGets, nil) {
				if n != len(gets) {
					t.Errorf("%s: %d of %d gets read their item", lib, n, len(gets))
				}
			}
			if t.Failed() {
				return
			}
			if engine == "postgres" {
				// One engine is enough for the markers: they do not depend
				// on the source.
				t.Run("markers", func(t *testing.T) {
					librariesReadTheMarkers(t, dir, node, dsn, endpoint, table)
				})
			}
			// Broken on purpose: a prefix in ElectroDB's module (an index
			// key, then a table key), a pad width in OneTable's schema; the
			// comparison must fail, and the gets' too where a table key is
			// broken.
			for _, c := range []struct {
				file, old, new string
				tableKey       bool
			}{
				{electro, `template: "SUBSCRIBE_USER"`, `template: "SUBSCRIBE_USERS"`, false},
				{electro, `template: "USER#${user_id}"`, `template: "USERS#${user_id}"`, true},
				{onetable, `"value": "USER#${user_id}"`, `"value": "USER#${user_id:4:0}"`, true},
			} {
				b, _ := os.ReadFile(c.file)
				broken := strings.Replace(string(b), c.old, c.new, 1)
				if broken == string(b) {
					t.Fatalf("%q is not in %s", c.old, c.file)
				}
				bf := filepath.Join(t.TempDir(), filepath.Base(c.file))
				if err := os.WriteFile(bf, []byte(broken), 0o644); err != nil {
					t.Fatal(err)
				}
				e, o := electro, onetable
				if c.file == electro {
					e = bf
				} else {
					o = bf
				}
				br := runLibs(t, dir, node, endpoint, table, e, o, calls, gets, false)
				results, getResults := br.OneTable, br.Gets.OneTable
				if c.file == electro {
					results, getResults = br.ElectroDB, br.Gets.ElectroDB
				}
				if c.tableKey && failedGets(getResults, wantGets) == 0 {
					t.Errorf("%s → %s: every get still reads its item", c.old, c.new)
				}
				failed := 0
				for i := range calls {
					if compareLib("", want[i], results[i]) != "" {
						failed++
					}
				}
				if failed == 0 {
					t.Errorf("%s → %s: every access pattern still reads the same", c.old, c.new)
				}
			}
		})
	}
}

// exportLibs2 exports the ElectroDB module and the OneTable schema of the
// mapping for the table into a temporary folder.
func exportLibs2(t *testing.T, dsn, mappingFile, table string) (electro, onetable string) {
	t.Helper()
	tmp := t.TempDir()
	electro, onetable = filepath.Join(tmp, "schema.ts"), filepath.Join(tmp, "onetable.json")
	for f, format := range map[string]string{electro: "electrodb", onetable: "onetable"} {
		export1(t, "--source", dsn, "-m", mappingFile, "--output", format, "--table", table, "--output-file", f)
	}
	return electro, onetable
}

// librariesReadTheMarkers migrates the example again, with every marker
// (table.markers), into a table of its own: the ElectroDB module reads
// without ignoreOwnership, and both libraries return exactly the rows and
// items they must, every access pattern; the same module on the table
// migrated without markers (plain, its module plainElectro) finds nothing
// where there is something to find.
func librariesReadTheMarkers(t *testing.T, dir, node, dsn, endpoint, plain string) {
	marked := testenv.EditedFile(t, personalizationMapping, "entity_attribute: _type", "entity_attribute: _type\n  markers: [electrodb, onetable, version]")
	db, table := testenv.DynamoDBTable(t)
	if code, out, errOut := remodel(t, "migrate", "--source", dsn, "-m", marked, "--endpoint", endpoint, "--table", table, "--create-table", "--rejects", filepath.Join(t.TempDir(), "rejects.jsonl"), "--checkpoint", filepath.Join(t.TempDir(), "checkpoint.json")); code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
	}
	electro, onetable := exportLibs2(t, dsn, marked, table)
	b, err := os.ReadFile(electro)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "ignoreOwnership") {
		t.Errorf("the ElectroDB module of a mapping with markers ignores ownership")
	}
	ctx := context.Background()
	p := compile(t, ctx, dsn, marked)
	calls, want := samplePatterns(t, ctx, p, "postgres", dsn, db, table)
	gets, wantGets := sampleGets(t, ctx, p, dsn, db, table)
	r := runLibs(t, dir, node, endpoint, table, electro, onetable, calls, gets, true)
	if len(r.TypeErrors) > 0 {
		t.Errorf("the ElectroDB module does not type-check:\n%s", strings.Join(r.TypeErrors, "\n"))
	}
	found := 0
	for lib, results := range map[string][]libResult{"ElectroDB": r.ElectroDB, "OneTable": r.OneTable} {
		if len(results) != len(calls) {
			t.Fatalf("%s: %d results for %d calls", lib, len(results), len(calls))
		}
		for i, c := range calls {
			if msg := compareLib(lib, want[i], results[i]); msg != "" {
				t.Errorf("%s %s %v: %s", lib, c.Pattern, c.Params, msg)
			}
			for _, items := range want[i].items {
				found += len(items)
			}
		}
	}
	if found == 0 {
		t.Fatal("the access patterns' samples find no item: the comparison proves nothing")
	}
	for lib, n := range checkGets(t, r, gets, wantGets, nil) {
		if n != len(gets) {
			t.Errorf("%s: %d of %d gets read their item, checking ownership", lib, n, len(gets))
		}
	}
	if t.Failed() {
		return
	}
	// The module that checks ownership reads nothing of the table migrated
	// without markers.
	br := runLibs(t, dir, node, endpoint, plain, electro, onetable, calls, nil, false)
	read := 0
	for i, res := range br.ElectroDB {
		if res.Error != "" {
			t.Fatalf("%s on the table without markers: %s", calls[i].Pattern, res.Error)
		}
		read += countItems(t, res.Items)
	}
	if read != 0 {
		t.Errorf("the module with markers reads %d items of the table without them: it does not check ownership", read)
	}
}

// countItems counts the items of a library's result: a list, or an object
// of lists (one per entity).
func countItems(t *testing.T, raw json.RawMessage) int {
	t.Helper()
	var list []any
	if json.Unmarshal(raw, &list) == nil {
		return len(list)
	}
	var per map[string][]any
	if err := json.Unmarshal(raw, &per); err != nil {
		t.Fatalf("a result of neither shape: %s", raw)
	}
	n := 0
	for _, l := range per {
		n += len(l)
	}
	return n
}

func compile(t *testing.T, ctx context.Context, dsn, mappingFile string) *mapping.Plan {
	t.Helper()
	f, err := mapping.ParseFile(mappingFile)
	if err != nil {
		t.Fatal(err)
	}
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	s, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f = f.ForEngine(s.Engine)
	// The source describes each entity's query and each params SQL, as
	// the commands do before they compile.
	for _, e := range f.Entities {
		describeQuery(t, ctx, src, s, e.Query.Value)
	}
	for _, ap := range f.AccessPatterns {
		describeQuery(t, ctx, src, s, ap.Params.Value)
	}
	p, err := mapping.Compile(f, s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// describeQuery adds the result columns of the query q, as the source
// describes them, to the schema s (nothing for no query).
func describeQuery(t *testing.T, ctx context.Context, src source.Source, s *introspect.Schema, q string) {
	t.Helper()
	if q == "" || s.Query(q) != nil {
		return
	}
	cols, err := src.QueryColumns(ctx, q)
	if err != nil {
		t.Fatalf("describe %q: %v", q, err)
	}
	s.AddQuery(q, cols)
}

// expected is what one call must return: the SQL's rows by their key
// columns' attributes, and the Query's items as a library returns them.
type expected struct {
	entities []string            // the pattern's entities
	keys     map[string][]string // per entity: the SQL rows' key texts, sorted
	items    map[string][]any    // per entity: the Query's items (library view), in order
	attrKeys map[string][]string // per entity: the attributes of the key columns
	// entityAttr is the entity attribute, which OneTable hides (its type
	// field) and ElectroDB returns (a declared attribute).
	entityAttr string
	// indexKeys are, for a get, the item's index keys that libView drops,
	// by index (indexKeysOf).
	indexKeys map[string]map[string]any
}

// samplePatterns samples up to 3 parameter sets per access pattern from
// the source (distinct values of the parameters' columns, none NULL, from
// the pattern's params SQL, its entity's query or its table), and for each
// runs the pattern's SQL and its Query.
func samplePatterns(t *testing.T, ctx context.Context, p *mapping.Plan, engine, dsn string, db *dynamodb.Client, table string) ([]libCall, []expected) {
	t.Helper()
	query := sqlRunner(t, ctx, engine, dsn)
	var calls []libCall
	var want []expected
	for _, ap := range p.AccessPatterns {
		var names []string
		for _, c := range ap.Params {
			names = append(names, c.Name)
		}
		// NULL is no parameter value (MySQL sorts it first).
		_, rows := query(fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL ORDER BY %s LIMIT 3", strings.Join(names, ", "), sampleFrom(ap), strings.Join(names, " IS NOT NULL AND "), strings.Join(names, ", ")), nil)
		for _, row := range rows {
			params := map[string]any{}
			for i, n := range names {
				params[n] = row[i]
			}
			calls = append(calls, libCall{ap.Name, params})
			ex := expected{keys: map[string][]string{}, items: map[string][]any{}, attrKeys: map[string][]string{}, entityAttr: p.Table.EntityAttr}
			for _, q := range ap.Queries {
				e := q.Entity
				ex.entities = append(ex.entities, e.Name)
				text, pnames := q.SQL.Text(func(i int) string {
					if engine == "postgres" {
						return "$" + strconv.Itoa(i)
					}
					return "?"
				})
				var args []any
				for _, n := range pnames {
					args = append(args, params[n])
				}
				cols, srows := query(text, args)
				attrOf := map[string]string{}
				for _, a := range e.ColumnAttributes() {
					attrOf[a.Column.Name] = a.Attr
				}
				for _, kc := range e.KeyColumns() {
					ex.attrKeys[e.Name] = append(ex.attrKeys[e.Name], attrOf[kc])
				}
				for _, sr := range srows {
					var key []string
					for _, kc := range e.KeyColumns() {
						for i, c := range cols {
							if c == kc {
								key = append(key, text1(sr[i]))
							}
						}
					}
					ex.keys[e.Name] = append(ex.keys[e.Name], strings.Join(key, "|"))
				}
				sort.Strings(ex.keys[e.Name])
			}
			var pv []any
			for _, n := range names {
				pv = append(pv, params[n])
			}
			kc, err := ap.KeyCondition(pv)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range queryAll(t, ctx, db, table, ap, kc) {
				ent := testenv.AttrText(it, p.Table.EntityAttr)
				ex.items[ent] = append(ex.items[ent], libView(p, it))
			}
			want = append(want, ex)
		}
	}
	return calls, want
}

// sampleFrom is what a pattern's parameters are sampled from: its params
// SQL, the query its entity reads, or the entity's table.
func sampleFrom(ap *mapping.AccessPattern) string {
	switch {
	case ap.ParamsSQL != nil:
		text, _ := ap.ParamsSQL.Text(func(int) string { return "" })
		return "(" + text + ") AS p"
	case ap.SampleFrom.Table.Query != "":
		return "(" + ap.SampleFrom.Table.Query + ") AS q"
	}
	return ap.SampleFrom.Table.Name
}

// libView is an item as the libraries return it: its attributes without
// the table's and the indexes' key attributes that templates build (an
// index key that is one of the entity's column attributes stays), and
// without the entity attribute, in JSON.
func libView(p *mapping.Plan, it map[string]types.AttributeValue) any {
	drop := map[string]bool{p.Table.PK.Name: true, p.Table.EntityAttr: true,
		// ElectroDB's markers, which both libraries hide.
		mapping.ElectroDBEntityAttr: true, mapping.ElectroDBVersionAttr: true}
	if p.Table.SK != nil {
		drop[p.Table.SK.Name] = true
	}
	column := map[string]bool{}
	if e := p.Entity(testenv.AttrText(it, p.Table.EntityAttr)); e != nil {
		for _, a := range e.ColumnAttributes() {
			column[a.Attr] = true
		}
	}
	for _, ix := range p.Table.Indexes {
		for _, k := range append(slices.Clone(ix.PK), ix.SK...) {
			if !column[k.Name] {
				drop[k.Name] = true
			}
		}
	}
	out := map[string]any{}
	for k, v := range it {
		if !drop[k] {
			out[k] = avJSON(v)
		}
	}
	return out
}

func avJSON(v types.AttributeValue) any {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberN:
		f, _ := strconv.ParseFloat(x.Value, 64)
		return f
	case *types.AttributeValueMemberBOOL:
		return x.Value
	case *types.AttributeValueMemberNULL:
		return nil
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for k, e := range x.Value {
			m[k] = avJSON(e)
		}
		return m
	case *types.AttributeValueMemberL:
		l := []any{}
		for _, e := range x.Value {
			l = append(l, avJSON(e))
		}
		return l
	}
	return fmt.Sprintf("%T", v)
}

// queryAll runs the pattern's Query as verify does: its key condition,
// every page, in order.
func queryAll(t *testing.T, ctx context.Context, db *dynamodb.Client, table string, ap *mapping.AccessPattern, kc mapping.KeyCond) []map[string]types.AttributeValue {
	t.Helper()
	names := map[string]string{"#p": ap.PK[0].Name}
	values := map[string]types.AttributeValue{":p": kc.PK[0]}
	cond := "#p = :p"
	if len(kc.SKEq) > 0 {
		names["#s"], values[":s"] = ap.SK[0].Name, kc.SKEq[0]
		cond += " AND #s = :s"
	}
	if ap.SKOp != "" {
		names["#r"] = ap.SK[ap.SKEq].Name
		values[":r0"] = kc.SK[0]
		switch ap.SKOp {
		case "begins_with":
			cond += " AND begins_with(#r, :r0)"
		case "between":
			values[":r1"] = kc.SK[1]
			cond += " AND #r BETWEEN :r0 AND :r1"
		default:
			cond += " AND #r " + ap.SKOp + " :r0"
		}
	}
	in := &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values, ScanIndexForward: aws.Bool(ap.Order != "desc")}
	if ap.Index != nil {
		in.IndexName = aws.String(ap.Index.Name)
	}
	var out []map[string]types.AttributeValue
	for {
		r, err := db.Query(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Items...)
		if len(r.LastEvaluatedKey) == 0 || (ap.Limit > 0 && len(out) >= ap.Limit) {
			break
		}
		in.ExclusiveStartKey = r.LastEvaluatedKey
	}
	if ap.Limit > 0 && len(out) > ap.Limit {
		out = out[:ap.Limit]
	}
	return out
}

// compareLib compares a library's result with what the call must return.
func compareLib(lib string, want expected, got libResult) string {
	if got.Error != "" {
		return "error: " + got.Error
	}
	per := map[string][]map[string]any{}
	if len(want.entities) == 1 {
		var items []map[string]any
		if err := json.Unmarshal(got.Items, &items); err != nil {
			return err.Error()
		}
		per[want.entities[0]] = items
	} else if err := json.Unmarshal(got.Items, &per); err != nil {
		return err.Error()
	}
	for _, e := range want.entities {
		items := per[e]
		var keys []string
		var view []any
		for _, it := range items {
			var key []string
			for _, a := range want.attrKeys[e] {
				key = append(key, text1(it[a]))
			}
			keys = append(keys, strings.Join(key, "|"))
			v := map[string]any{}
			for k, x := range it {
				if k != want.entityAttr {
					v[k] = x
				}
			}
			view = append(view, v)
		}
		sort.Strings(keys)
		if slices.Contains(want.attrKeys[e], "") {
			// A key column the items do not hold (attributes include):
			// the rows are only counted.
			if len(keys) != len(want.keys[e]) {
				return fmt.Sprintf("entity %s: %d rows, the SQL returns %d", e, len(keys), len(want.keys[e]))
			}
		} else if !reflect.DeepEqual(nilEmpty(keys), nilEmpty(want.keys[e])) {
			return fmt.Sprintf("entity %s: rows %v, the SQL returns %v", e, keys, want.keys[e])
		}
		if !reflect.DeepEqual(nilEmptyAny(view), nilEmptyAny(want.items[e])) {
			g, _ := json.Marshal(view)
			w, _ := json.Marshal(want.items[e])
			return fmt.Sprintf("entity %s: items\n%s\nthe Query returns\n%s", e, g, w)
		}
	}
	return ""
}

func nilEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nilEmptyAny(s []any) []any {
	if len(s) == 0 {
		return nil
	}
	b, _ := json.Marshal(s)
	var out []any
	_ = json.Unmarshal(b, &out)
	return out
}

// text1 is a value's text as a key part: numbers without a fraction as
// integers.
func text1(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// sqlRunner runs SQL on the source: column names and rows, each value an
// int64, a float64, a string or a time.
func sqlRunner(t *testing.T, ctx context.Context, engine, dsn string) func(q string, args []any) ([]string, [][]any) {
	t.Helper()
	if engine == "postgres" {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return func(q string, args []any) ([]string, [][]any) {
			rows, err := c.Query(ctx, q, args...)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			defer rows.Close()
			var cols []string
			for _, f := range rows.FieldDescriptions() {
				cols = append(cols, f.Name)
			}
			var out [][]any
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range vals {
					switch x := v.(type) {
					case int32:
						vals[i] = int64(x)
					case int16:
						vals[i] = int64(x)
					}
				}
				out = append(out, vals)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			return cols, out
		}
	}
	cfg := testenv.MySQLConfig(t, dsn)
	cfg.ParseTime = true
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return func(q string, args []any) ([]string, [][]any) {
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out [][]any
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					s := string(b)
					if n, err := strconv.ParseInt(s, 10, 64); err == nil {
						vals[i] = n
					} else {
						vals[i] = s
					}
				}
			}
			out = append(out, vals)
		}
		return cols, out
	}
}
