package analyze_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestGolden pins the report of the skewed table, as text and as JSON, at
// --rate-limit 2000: both engines must give the same report, byte for byte
// (but the engine's name). go test ./analyze -run TestGolden -update
// rewrites the files from PostgreSQL.
func TestGolden(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, skewSchema)
			eng.Exec(t, dsn, skewData())
			p, src := compile(t, dsn, skewMapping)
			rep, err := analyze.Run(context.Background(), analyze.Options{Plan: p, Source: src, RateLimit: 2000})
			if err != nil {
				t.Fatal(err)
			}
			rep.Engine = "ENGINE"
			var text, md bytes.Buffer
			if err := report.Write(&text, report.Text, rep); err != nil {
				t.Fatal(err)
			}
			if err := report.Write(&md, report.Markdown, rep); err != nil {
				t.Fatal(err)
			}
			js, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if golden.Updating() && eng.Name != "postgres" {
				return // the files are written from PostgreSQL
			}
			golden.Check(t, "skewed.txt", text.Bytes())
			golden.Check(t, "skewed.md", md.Bytes())
			golden.Check(t, "skewed.json", append(js, '\n'))
		})
	}
}
