package verify_test

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestPatternWithoutSamplesIsSkipped: a pattern whose params SQL samples
// no values checks nothing: it is reported skipped (text SKIP, JUnit
// <skipped>), never PASS.
func TestPatternWithoutSamplesIsSkipped(t *testing.T) {
	eng := testenv.Engines[0]
	// The pattern goes at the end of access_patterns (the acknowledge:
	// list follows it).
	m := strings.Replace(exampleMapping(t), "\nacknowledge:", `
  findNobody:
    query: {pk: "USER#{user_id}", sk: "USER#"}
    entity: user
    sql: SELECT * FROM users WHERE user_id = {user_id}
    params: SELECT user_id FROM users WHERE user_id < 0
acknowledge:`, 1)
	if !strings.Contains(m, "findNobody") {
		t.Fatal("the example mapping has no acknowledge: list to put the pattern before")
	}
	rep := run(t, migrated(t, eng.Name, eng.Fresh, m))
	var found bool
	for _, p := range rep.Patterns {
		if p.Name != "findNobody" {
			if p.NotChecked {
				t.Errorf("pattern %s with %d samples is skipped", p.Name, p.Samples)
			}
			continue
		}
		found = true
		if !p.NotChecked || p.Samples != 0 {
			t.Errorf("findNobody: not_checked %v, %d samples; want skipped with 0", p.NotChecked, p.Samples)
		}
	}
	if !found {
		t.Fatalf("no findNobody in the report:\n%s", text(rep))
	}
	out := text(rep)
	if !strings.Contains(out, "  SKIP  findNobody ") || strings.Contains(out, "PASS  findNobody") {
		t.Errorf("the text report does not say findNobody is skipped:\n%s", out)
	}
	var x strings.Builder
	if err := report.Write(&x, report.JUnit, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(x.String(), `<testcase name="findNobody" classname="remodel.verify.access_patterns"`) || !strings.Contains(x.String(), "<skipped>on the table: skipped: no parameter values to sample") {
		t.Errorf("the JUnit report does not skip findNobody:\n%s", x.String())
	}
}
