package report

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/verify"
)

// verifyJUnit writes the report as JUnit XML: one testsuite per check kind
// (counts, items, access patterns), one testcase per entity count (and one
// for stray items), per entity item check and per access pattern; a failed
// check carries one failure with all its listed problems. When verify could
// not finish, a "verify" testsuite holds a testcase with the error. The
// document follows the JUnit schema Jenkins uses (internal/app/report/testdata/junit.xsd).
func verifyJUnit(w *errWriter, r *verify.Report) {
	doc := junitSuites{Name: strings.TrimSpace("remodel verify " + r.Table), Time: fmt.Sprintf("%.3f", r.Seconds)}
	var suite *junitSuite
	for _, c := range r.Checks() {
		if suite == nil || suite.Name != c.Suite {
			doc.Suites = append(doc.Suites, junitSuite{Name: c.Suite})
			suite = &doc.Suites[len(doc.Suites)-1]
		}
		tc := junitCase{Name: c.Name, Classname: "remodel.verify." + strings.ReplaceAll(c.Suite, " ", "_"), SystemOut: c.Summary}
		suite.Tests++
		switch {
		case c.Skipped:
			tc.Skipped = &junitText{Text: c.Summary}
			suite.Skipped++
		case !c.OK:
			tc.Failure = junitFailureOf(c)
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	if r.Error != "" {
		doc.Suites = append(doc.Suites, junitSuite{Name: "verify", Tests: 1, Errors: 1, Cases: []junitCase{{
			Name: "run", Classname: "remodel.verify",
			Error: &junitFailure{Type: "error", Message: r.Error, Text: "verify could not finish: " + r.Error},
		}}})
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
	}
	w.printf("%s", xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		w.fail(fmt.Errorf("verify: writing JUnit XML: %w", err))
	}
	w.printf("\n")
}

func junitFailureOf(c verify.Check) *junitFailure {
	f := &junitFailure{Type: "verify", Message: c.Summary}
	if c.Problems != nil && len(c.Problems.List) > 0 {
		c.Problems.Sort()
		first := c.Problems.List[0]
		f.Type = string(first.Kind)
		f.Message = first.Message
		if c.Problems.Total > 1 {
			f.Message = fmt.Sprintf("%s (and %d more problems)", first.Message, c.Problems.Total-1)
		}
		f.Text = strings.Join(c.Problems.Lines(), "\n")
	}
	return f
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

// junitCase's fields are in the schema's order: skipped, error, failure,
// system-out.
type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Skipped   *junitText    `xml:"skipped"`
	Error     *junitFailure `xml:"error"`
	Failure   *junitFailure `xml:"failure"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitText struct {
	Text string `xml:",chardata"`
}

type junitFailure struct {
	Type    string `xml:"type,attr,omitempty"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}
