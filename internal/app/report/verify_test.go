package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/verify"
)

func problems(max int, ps ...verify.Problem) verify.Problems {
	out := verify.Problems{Max: max}
	for _, p := range ps {
		out.Add(p)
	}
	out.Sort()
	return out
}

// reports are hand-built reports that use every part of the shape: a
// failed run with every kind of check and problem, and a run that could
// not finish.
func reports() map[string]*verify.Report {
	failed := &verify.Report{
		Version: verify.ReportVersion, Table: "league", Engine: "postgres", Seed: 42, Seconds: 1.25,
		Counts: []verify.CountCheck{
			{Entity: "team", Source: 5, Items: 5, OK: true},
			{Entity: "player", Source: 40, Rejected: 3, Items: 36, Problems: problems(20, verify.Problem{Kind: verify.KindCount, Entity: "player", Want: "37", Got: "36",
				Message: "entity player: 40 source rows - 3 accepted rejects = 37, the table holds 36 items"})},
			{Entity: "coach", Problems: problems(20, verify.Problem{Kind: verify.KindCheckError, Entity: "coach",
				Message: `counting the rows of entity coach: ERROR: column "no_such_column" does not exist (SQLSTATE 42703)`})},
		},
		Stray: problems(1,
			verify.Problem{Kind: verify.KindStray, Key: "PK=X#1 SK=X#", Message: `item PK=X#1 SK=X# belongs to no entity of the mapping (_type S "ghost")`},
			verify.Problem{Kind: verify.KindStray, Entity: "player", Key: "PK=TEAM#9 SK=PLAYER#zz", Message: "item PK=TEAM#9 SK=PLAYER#zz (entity player) comes from no source row"},
		),
		Items: []verify.ItemCheck{
			{Entity: "team", Rows: 5, SampleRate: 1, Sampled: 5, Compared: 5, Problems: problems(20), OK: true},
			{Entity: "player", Rows: 40, SampleRate: 1, Sampled: 37, Compared: 37, Missing: 1, Different: 1, Problems: problems(20,
				verify.Problem{Kind: verify.KindMissing, Entity: "player", Key: "PK=TEAM#3 SK=PLAYER#p2", SourceKey: "player_id=2", Message: "missing item PK=TEAM#3 SK=PLAYER#p2 (entity player, row player_id=2)"},
				verify.Problem{Kind: verify.KindDifferent, Entity: "player", Key: "PK=TEAM#2 SK=PLAYER#a|b<c>&\x01", SourceKey: "player_id=1", Attribute: "score", Want: "N 10", Got: "N 11",
					Message: "item PK=TEAM#2 SK=PLAYER#a|b<c>&\x01 (entity player, row player_id=1) differs: score is N 11, want N 10 ```"},
				verify.Problem{Kind: verify.KindRejectedPresent, Entity: "player", Key: "PK=TEAM#4 SK=PLAYER#p3", SourceKey: "player_id=3",
					Message: "row player_id=3 of entity player is accepted as rejected (rejects.jsonl:4: forged), but the table holds its item PK=TEAM#4 SK=PLAYER#p3"},
			)},
			{Entity: "coach", Problems: problems(20, verify.Problem{Kind: verify.KindCheckError, Entity: "coach", Message: "items not compared: the rows of entity coach cannot be read (see its count)"})},
		},
		Patterns: []verify.PatternCheck{
			{Name: "findTeam", Target: "the table", Samples: 2, Params: []string{"{team_id=1}", "{team_id=4}"}, Items: 2, Problems: problems(20), OK: true},
			{Name: "findPlayerByHandle", Target: "index GSI1", Samples: 2, Params: []string{"{handle=p1}", "{handle=p8}"}, Items: 2, Problems: problems(20,
				verify.Problem{Kind: verify.KindQueryExtra, Pattern: "findPlayerByHandle", Params: "{handle=p1}", Entity: "player", Key: "PK=TEAM#9 SK=PLAYER#p1",
					Message: "{handle=p1}: the Query returns item PK=TEAM#9 SK=PLAYER#p1 (entity player) that the SQL does not"})},
			{Name: "brokenPattern", Target: "the table", Samples: 1, Params: []string{"{team_id=2}"}, Problems: problems(20,
				verify.Problem{Kind: verify.KindPatternError, Pattern: "brokenPattern", Params: "{team_id=2}",
					Message: `{team_id=2}: running the SQL of entity player: ERROR: column "no_such_column" does not exist (SQLSTATE 42703)`})},
			{Name: "findCoach", Target: "the table", Problems: problems(20), Note: "skipped: no parameter values to sample (the source has no rows for it)", OK: true, NotChecked: true},
		},
		Rejects: &verify.RejectsReport{File: "rejects.jsonl", Total: 3, Rows: []verify.Rejection{
			{Entity: "player", Row: "player_id=19", Reason: "rendering SK: {handle}: column handle is NULL", Line: 2},
			{Entity: "player", Row: "player_id=33", Reason: "rendering SK: {handle}: column handle is NULL", Line: 3},
		}},
	}
	failed.Stray.Total = 2
	unfinished := &verify.Report{
		Version: verify.ReportVersion, Table: "league", Engine: "mysql", Seed: 7, Seconds: 0.5, ItemsSkipped: true,
		Counts: []verify.CountCheck{{Entity: "team", Source: 5, Items: 5, OK: true}},
		Error:  "verify: scanning league: operation error DynamoDB: Scan, connection refused",
	}
	return map[string]*verify.Report{"failed": failed, "unfinished": unfinished}
}

// TestRenderGolden pins every format of the hand-built reports.
func TestRenderGolden(t *testing.T) {
	ext := map[report.Format]string{report.Text: "txt", report.JSON: "json", report.JUnit: "xml", report.Markdown: "md"}
	for name, rep := range reports() {
		for _, f := range report.Formats(rep) {
			var b bytes.Buffer
			if err := report.Write(&b, f, rep); err != nil {
				t.Fatalf("%s as %s: %v", name, f, err)
			}
			golden.Check(t, "verify."+name+".golden."+ext[f], b.Bytes())
		}
	}
}

// TestJSONReportShape decodes the JSON report generically and checks the
// contract's fields: a version, ok, every check, and structured problems.
func TestJSONReportShape(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteJSON(&b, reports()["failed"]); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["version"] != float64(verify.ReportVersion) || doc["ok"] != false {
		t.Fatalf("version %v, ok %v", doc["version"], doc["ok"])
	}
	for _, k := range []string{"counts", "stray_items", "items", "access_patterns", "accepted_rejects", "seed", "table", "engine", "seconds"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("the JSON report has no %q", k)
		}
	}
	items := doc["items"].([]any)[1].(map[string]any)
	list := items["problems"].(map[string]any)["list"].([]any)
	p := list[0].(map[string]any)
	for k, want := range map[string]string{"kind": "different_item", "entity": "player", "key": "PK=TEAM#2 SK=PLAYER#a|b<c>&\x01", "source_key": "player_id=1", "attribute": "score", "want": "N 10", "got": "N 11"} {
		if p[k] != want {
			t.Errorf("problem field %s = %v, want %q", k, p[k], want)
		}
	}
}

// TestJUnitMatchesSchema validates the JUnit rendering of every report
// against the JUnit schema Jenkins uses, with the JDK's validator (Java is
// on every machine that runs these tests: DynamoDB Local needs it), and
// checks the validator rejects a document that breaks the schema.
func TestJUnitMatchesSchema(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		if testenv.Require() {
			t.Fatalf("no java to validate JUnit XML with: %v", err)
		}
		t.Skipf("no java: %v", err)
	}
	// Every document in one run of the validator (the JVM is slow to start).
	dir := t.TempDir()
	docs := map[string][]byte{
		// The validator can fail: <skipped> after <failure> breaks the schema.
		"broken": []byte(`<?xml version="1.0"?><testsuites><testsuite name="x" tests="1"><testcase name="a"><failure message="m">t</failure><skipped/></testcase></testsuite></testsuites>`),
	}
	for name, rep := range reports() {
		var b bytes.Buffer
		if err := report.Write(&b, report.JUnit, rep); err != nil {
			t.Fatal(err)
		}
		docs[name] = b.Bytes()
	}
	args := []string{"testdata/XSDValidate.java", "testdata/junit.xsd"}
	for name, doc := range docs {
		path := filepath.Join(dir, name+".xml")
		if err := os.WriteFile(path, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	out, _ := exec.Command(java, args...).CombinedOutput()
	verdict := func(name string) string {
		prefix := filepath.Join(dir, name+".xml")
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, prefix) {
				return strings.TrimPrefix(line, prefix)
			}
		}
		return "no verdict in:\n" + string(out)
	}
	if v := verdict("broken"); !strings.Contains(v, "'skipped'") {
		t.Errorf("the validator did not reject a document that breaks the schema: %s", v)
	}
	for name := range reports() {
		if v := verdict(name); v != ": valid" {
			t.Errorf("the JUnit XML of the %s report does not match the schema%s\n%s", name, v, docs[name])
		}
		var doc struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Suites   []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Name string `xml:"name,attr"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(docs[name], &doc); err != nil {
			t.Fatal(err)
		}
		switch name {
		case "failed":
			// counts: team, player, coach, stray items; items: 3; patterns: 4.
			if doc.Tests != 11 || doc.Failures != 7 || doc.Errors != 0 || len(doc.Suites) != 3 || doc.Suites[2].Name != "access patterns" || len(doc.Suites[2].Cases) != 4 {
				t.Errorf("failed report as JUnit: %+v", doc)
			}
		case "unfinished":
			if doc.Errors != 1 || doc.Suites[len(doc.Suites)-1].Name != "verify" {
				t.Errorf("unfinished report as JUnit: %+v", doc)
			}
		}
	}
}

// TestRenderWithoutTable: a run whose mapping could not be read knows no
// table; its headline said "verify FAIL table  (seed 7)", and the JUnit
// suite's name ended in a space.
func TestRenderWithoutTable(t *testing.T) {
	rep := &verify.Report{Version: verify.ReportVersion, Seed: 7, Error: "mapping: reading mapping.yaml: open mapping.yaml: no such file or directory"}
	for f, want := range map[report.Format]string{
		report.Text:     "verify FAIL (seed 7)\n",
		report.Markdown: "### ❌ remodel verify: FAIL\n\nSeed 7, 0.0 s.\n\n",
		report.JUnit:    `<testsuites name="remodel verify" `,
	} {
		var b bytes.Buffer
		if err := report.Write(&b, f, rep); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s report does not contain %q:\n%s", f, want, b.String())
		}
	}
}
