package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/app/cli"
	"github.com/remodel-dev/remodel/internal/domain/export"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

func remodel(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func export1(t *testing.T, args ...string) []byte {
	t.Helper()
	code, out, errOut := remodel(t, append([]string{"export"}, args...)...)
	if code != 0 {
		t.Fatalf("export %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return []byte(out)
}

// TestFileOnly exports table definitions without a source: the golden
// files of the examples and of a mapping that uses every part of a table
// definition, each template checked for its structure.
func TestFileOnly(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, c := range []struct{ name, mapping string }{
		{"personalization", "../../../examples/personalization/mapping.yaml"},
		{"leaderboard", "../../../examples/leaderboard/mapping.yaml"},
		{"everything", "testdata/everything.yaml"},
		{"projections", "testdata/projections.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfn := export1(t, "-m", c.mapping, "--output", "cloudformation")
			golden.Check(t, c.name+".cloudformation.json", cfn)
			if problems := checkTemplate(cfn); len(problems) > 0 {
				t.Errorf("the template is not well formed:\n%s", strings.Join(problems, "\n"))
			}
			if c.name == "everything" {
				code, _, errOut := remodel(t, "export", "-m", c.mapping, "--output", "terraform")
				want := "remodel: export: index ByRegionWeek has a multi-attribute key (region, week / total, orderId), which the Terraform export does not write: use --output cloudformation\n"
				if code != 3 || errOut != want {
					t.Errorf("terraform of a multi-attribute key: exit %d, %q; want 3, %q", code, errOut, want)
				}
				return
			}
			golden.Check(t, c.name+".tf", export1(t, "-m", c.mapping, "--output", "terraform"))
		})
	}
}

// TestFileOnlyBadMapping: without a source the file is still checked.
func TestFileOnlyBadMapping(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\ntable:\n  name: shop\n  key: {pk: PK}\n  indexes:\n    - {name: Loc1, local: true, sk: X}\nentities:\n  e: {from: t, pk: \"A#{id}\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := remodel(t, "export", "-m", bad, "--output", "cloudformation")
	want := "remodel: " + bad + ":6:7: table.indexes[0]: a local index needs a table with a sort key\n"
	if code != 3 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 3 and %q", code, out, errOut, want)
	}
	code, _, errOut = remodel(t, "export", "-m", bad, "--output", "yaml")
	if code != 2 || errOut != "remodel: --output must be workbench, cloudformation, terraform, electrodb, onetable or dynamodb-mcp, got \"yaml\"\n" {
		t.Errorf("--output yaml: exit %d, %q", code, errOut)
	}
}

// checkTemplate checks a CloudFormation template's structure the way
// CloudFormation and CreateTable would: the known properties only, every
// key attribute defined once with S, N or B, every definition used by a
// key (CreateTable refuses unused ones), HASH attributes before RANGE ones
// and at most one of each on the table and local indexes, a local index
// sharing the table's partition key, capacity exactly when provisioned.
func checkTemplate(b []byte) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var tmpl map[string]any
	if err := json.Unmarshal(b, &tmpl); err != nil {
		return []string{err.Error()}
	}
	if tmpl["AWSTemplateFormatVersion"] != "2010-09-09" {
		bad("AWSTemplateFormatVersion is %v", tmpl["AWSTemplateFormatVersion"])
	}
	res, _ := tmpl["Resources"].(map[string]any)
	if len(res) != 1 {
		return append(problems, fmt.Sprintf("%d resources, want 1", len(res)))
	}
	for id, r := range res {
		if !regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`).MatchString(id) {
			bad("logical id %q is not alphanumeric", id)
		}
		rm := r.(map[string]any)
		if rm["Type"] != "AWS::DynamoDB::Table" {
			bad("type %v", rm["Type"])
		}
		p, _ := rm["Properties"].(map[string]any)
		known := []string{"TableName", "BillingMode", "AttributeDefinitions", "KeySchema", "ProvisionedThroughput", "GlobalSecondaryIndexes", "LocalSecondaryIndexes", "TimeToLiveSpecification"}
		for k := range p {
			if !slices.Contains(known, k) {
				bad("unknown property %s", k)
			}
		}
		defs := map[string]string{}
		for _, d := range list(p["AttributeDefinitions"]) {
			n, typ := d["AttributeName"].(string), d["AttributeType"].(string)
			if _, dup := defs[n]; dup {
				bad("attribute %s defined twice", n)
			}
			if typ != "S" && typ != "N" && typ != "B" {
				bad("attribute %s has type %s", n, typ)
			}
			defs[n] = typ
		}
		used := map[string]bool{}
		keys := func(where string, ks []map[string]any, multi bool) (hash []string) {
			var h, r int
			for i, k := range ks {
				n := k["AttributeName"].(string)
				used[n] = true
				if _, ok := defs[n]; !ok {
					bad("%s: key attribute %s has no definition", where, n)
				}
				switch k["KeyType"] {
				case "HASH":
					if r > 0 {
						bad("%s: HASH attribute %s after a RANGE one", where, n)
					}
					if i != h {
						bad("%s: HASH attributes must come first", where)
					}
					h++
					hash = append(hash, n)
				case "RANGE":
					r++
				default:
					bad("%s: key type %v", where, k["KeyType"])
				}
			}
			if h == 0 || (!multi && (h > 1 || r > 1)) || h > 4 || r > 4 {
				bad("%s: %d HASH and %d RANGE attributes", where, h, r)
			}
			return hash
		}
		tableHash := keys("table", list(p["KeySchema"]), false)
		provisioned := p["BillingMode"] == "PROVISIONED"
		if !provisioned && p["BillingMode"] != "PAY_PER_REQUEST" {
			bad("billing mode %v", p["BillingMode"])
		}
		if (p["ProvisionedThroughput"] != nil) != provisioned {
			bad("ProvisionedThroughput %v with billing mode %v", p["ProvisionedThroughput"], p["BillingMode"])
		}
		projection := func(where string, ix map[string]any) {
			pr, _ := ix["Projection"].(map[string]any)
			attrs, _ := pr["NonKeyAttributes"].([]any)
			switch pr["ProjectionType"] {
			case "ALL", "KEYS_ONLY":
				if attrs != nil {
					bad("%s: NonKeyAttributes with projection %v", where, pr["ProjectionType"])
				}
			case "INCLUDE":
				if len(attrs) == 0 {
					bad("%s: projection INCLUDE without NonKeyAttributes", where)
				}
			default:
				bad("%s: projection type %v", where, pr["ProjectionType"])
			}
		}
		for _, g := range list(p["GlobalSecondaryIndexes"]) {
			keys("index "+g["IndexName"].(string), list(g["KeySchema"]), true)
			projection("index "+g["IndexName"].(string), g)
			if (g["ProvisionedThroughput"] != nil) != provisioned {
				bad("index %v: ProvisionedThroughput with billing mode %v", g["IndexName"], p["BillingMode"])
			}
		}
		for _, l := range list(p["LocalSecondaryIndexes"]) {
			h := keys("local index "+l["IndexName"].(string), list(l["KeySchema"]), false)
			projection("local index "+l["IndexName"].(string), l)
			if !slices.Equal(h, tableHash) {
				bad("local index %v: partition key %v, the table's is %v", l["IndexName"], h, tableHash)
			}
		}
		for n := range defs {
			if !used[n] {
				bad("attribute %s is defined but no key uses it", n)
			}
		}
	}
	return problems
}

func list(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, e := range l {
		out = append(out, e.(map[string]any))
	}
	return out
}

// TestCheckTemplateCanFail: the structure check finds each planted fault.
func TestCheckTemplateCanFail(t *testing.T) {
	f, err := mapping.ParseFile("testdata/everything.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := mapping.TableOf(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		break_ func(p *export.TableProperties)
		want   string
	}{
		{"unused definition", func(p *export.TableProperties) {
			p.AttributeDefinitions = append(p.AttributeDefinitions, export.AttributeDefinition{AttributeName: "zzz", AttributeType: "S"})
		}, "attribute zzz is defined but no key uses it"},
		{"missing definition", func(p *export.TableProperties) { p.AttributeDefinitions = p.AttributeDefinitions[1:] }, "has no definition"},
		{"RANGE first", func(p *export.TableProperties) { slices.Reverse(p.KeySchema) }, "HASH attribute PK after a RANGE one"},
		{"no throughput", func(p *export.TableProperties) { p.ProvisionedThroughput = nil }, "ProvisionedThroughput <nil> with billing mode PROVISIONED"},
		{"local index on another partition key", func(p *export.TableProperties) {
			p.LocalSecondaryIndexes[0].KeySchema[0].AttributeName = "status"
		}, "local index ByTotal: partition key [status]"},
		{"INCLUDE without attributes", func(p *export.TableProperties) {
			p.GlobalSecondaryIndexes[0].Projection.NonKeyAttributes = nil
		}, "index ByStatus: projection INCLUDE without NonKeyAttributes"},
		{"KEYS_ONLY with attributes", func(p *export.TableProperties) {
			p.LocalSecondaryIndexes[0].Projection.NonKeyAttributes = []string{"total"}
		}, "local index ByTotal: NonKeyAttributes with projection KEYS_ONLY"},
	} {
		tmpl := export.CloudFormationTemplate(tbl, export.Options{})
		for id, r := range tmpl.Resources {
			c.break_(&r.Properties)
			tmpl.Resources[id] = r
		}
		b, _ := json.Marshal(tmpl)
		problems := strings.Join(checkTemplate(b), "\n")
		if !strings.Contains(problems, c.want) {
			t.Errorf("%s: the check says %q, want %q", c.name, problems, c.want)
		}
	}
}

// TestCloudFormationCreatesTheTable gives the template's table properties
// to CreateTable on DynamoDB Local (CloudFormation passes them on under
// the same names) and compares what DynamoDB made with the table migrate
// --create-table makes from the same mapping: keys, attribute definitions,
// indexes, projections, billing.
func TestCloudFormationCreatesTheTable(t *testing.T) {
	for _, m := range []string{"../../../examples/personalization/mapping.yaml", "../../../examples/leaderboard/mapping.yaml", "testdata/everything.yaml", "testdata/projections.yaml"} {
		t.Run(filepath.Base(filepath.Dir(m))+"/"+filepath.Base(m), func(t *testing.T) {
			t.Parallel()
			f, err := mapping.ParseFile(m)
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := mapping.TableOf(f)
			if err != nil {
				t.Fatal(err)
			}
			db, fromTemplate := testenv.DynamoDBTable(t)
			_, byMigrate := testenv.DynamoDBTable(t)
			tmpl := export.CloudFormationTemplate(tbl, export.Options{TableName: fromTemplate})
			var props json.RawMessage
			for _, r := range tmpl.Resources {
				props, _ = json.Marshal(r.Properties)
			}
			var in dynamodb.CreateTableInput
			if err := json.Unmarshal(props, &in); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := db.CreateTable(ctx, &in); err != nil {
				t.Fatalf("CreateTable with the template's properties: %v", err)
			}
			if err := migrate.CreateTable(ctx, db, tbl, byMigrate, 2*time.Minute); err != nil {
				t.Fatal(err)
			}
			a, b := describe(t, db, fromTemplate), describe(t, db, byMigrate)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("the template's table differs from migrate's:\n%s\n%s", a, b)
			}
			if tbl.TTL != "" {
				var ttl *struct{ AttributeName string }
				for _, r := range tmpl.Resources {
					if s := r.Properties.TimeToLiveSpecification; s != nil && s.Enabled {
						ttl = &struct{ AttributeName string }{s.AttributeName}
					}
				}
				if ttl == nil || ttl.AttributeName != tbl.TTL {
					t.Errorf("TimeToLiveSpecification %v, want %s enabled", ttl, tbl.TTL)
				}
			}
		})
	}
}

// describe is what DynamoDB says about a table's definition, as text that
// leaves out its name, times and sizes.
func describe(t *testing.T, db dynamo.API, name string) string {
	t.Helper()
	out, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	d := out.Table
	ks := func(k []types.KeySchemaElement) string {
		var s []string
		for _, e := range k {
			s = append(s, aws.ToString(e.AttributeName)+" "+string(e.KeyType))
		}
		return strings.Join(s, ", ")
	}
	var lines []string
	var defs []string
	for _, a := range d.AttributeDefinitions {
		defs = append(defs, aws.ToString(a.AttributeName)+" "+string(a.AttributeType))
	}
	sort.Strings(defs)
	lines = append(lines, "definitions "+strings.Join(defs, ", "), "key "+ks(d.KeySchema))
	if d.BillingModeSummary != nil {
		lines = append(lines, "billing "+string(d.BillingModeSummary.BillingMode))
	}
	if p := d.ProvisionedThroughput; p != nil {
		lines = append(lines, fmt.Sprintf("throughput %d/%d", aws.ToInt64(p.ReadCapacityUnits), aws.ToInt64(p.WriteCapacityUnits)))
	}
	for _, g := range d.GlobalSecondaryIndexes {
		l := "global " + aws.ToString(g.IndexName) + ": " + ks(g.KeySchema) + " " + mapping.ProjectionText(g.Projection)
		if p := g.ProvisionedThroughput; p != nil {
			l += fmt.Sprintf(" %d/%d", aws.ToInt64(p.ReadCapacityUnits), aws.ToInt64(p.WriteCapacityUnits))
		}
		lines = append(lines, l)
	}
	for _, l := range d.LocalSecondaryIndexes {
		lines = append(lines, "local "+aws.ToString(l.IndexName)+": "+ks(l.KeySchema)+" "+mapping.ProjectionText(l.Projection))
	}
	sort.Strings(lines[2:])
	return strings.Join(lines, "\n")
}

// personalization loads the example into a fresh PostgreSQL database.
func personalization(t *testing.T) (dsn, db string) {
	t.Helper()
	dsn = testenv.Postgres(t)
	testenv.LoadExample(t, "postgres", dsn, "../../../examples/personalization")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return dsn, strings.TrimPrefix(u.Path, "/")
}

var dates = regexp.MustCompile(`"Date(Created|LastModified)": "[^"]*"`)

// TestWorkbench exports the personalization example on a real source as a
// NoSQL Workbench model: its golden file, its structure (checkWorkbench),
// and the same table definition as the CloudFormation export; and with
// its indexes projecting KEYS_ONLY and INCLUDE (another golden file).
func TestWorkbench(t *testing.T) {
	dsn, db := personalization(t)
	out := export1(t, "--source", dsn, "-m", "../../../examples/personalization/mapping.yaml", "--output", "workbench", "--rows", "2")
	if !dates.Match(out) {
		t.Fatalf("no dates in\n%s", out)
	}
	norm := dates.ReplaceAll(out, []byte(`"Date$1": "DATE"`))
	norm = bytes.ReplaceAll(norm, []byte(db), []byte("DB"))
	golden.Check(t, "personalization.workbench.json", norm)
	if problems := checkWorkbench(out); len(problems) > 0 {
		t.Errorf("the model is not well formed:\n%s", strings.Join(problems, "\n"))
	}
	// The indexes' projections: GSI1 the keys only, GSI2 the keys and
	// subscribedAt.
	projected := testenv.EditedFile(t, "../../../examples/personalization/mapping.yaml",
		"{name: GSI1, pk: SK, sk: PK}", "{name: GSI1, pk: SK, sk: PK, projection: KEYS_ONLY}",
		"{name: GSI2, pk: data, sk: SK}", "{name: GSI2, pk: data, sk: SK, projection: {include: [subscribedAt]}}")
	pout := export1(t, "--source", dsn, "-m", projected, "--output", "workbench", "--rows", "2")
	if problems := checkWorkbench(pout); len(problems) > 0 {
		t.Errorf("the model with projections is not well formed:\n%s", strings.Join(problems, "\n"))
	}
	pout = dates.ReplaceAll(pout, []byte(`"Date$1": "DATE"`))
	golden.Check(t, "personalization.projections.workbench.json", bytes.ReplaceAll(pout, []byte(db), []byte("DB")))

	// With a source, cloudformation is the same as without.
	cfn := export1(t, "--source", dsn, "-m", "../../../examples/personalization/mapping.yaml", "--output", "cloudformation")
	want, err := os.ReadFile("testdata/personalization.cloudformation.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cfn, want) {
		t.Errorf("cloudformation with a source differs from without:\n%s", cfn)
	}
	// -o writes the file.
	path := filepath.Join(t.TempDir(), "model.json")
	if got := string(export1(t, "--source", dsn, "-m", "../../../examples/personalization/mapping.yaml", "--output", "workbench", "--output-file", path)); got != "wrote "+path+" (workbench)\n" {
		t.Errorf("-o printed %q", got)
	}
	if b, err := os.ReadFile(path); err != nil || len(checkWorkbench(b)) > 0 {
		t.Errorf("-o wrote a model that is not well formed (%v)", err)
	}
}

// TestWorkbenchRefuses: a mapping with a local index cannot become a
// Workbench model, and says so instead of leaving the index out.
func TestWorkbenchRefuses(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.LoadExample(t, "postgres", dsn, "../../../examples/leaderboard")
	code, out, errOut := remodel(t, "export", "--source", dsn, "-m", "../../../examples/leaderboard/mapping.yaml", "--output", "workbench")
	want := "remodel: export: index PersonalBest is a local index, which a NoSQL Workbench data model cannot hold (it has global indexes only): use --output cloudformation\n"
	if code != 3 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 3 and %q", code, out, errOut, want)
	}
}
