package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/app/progressview"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// ansiRE is a terminal's escape sequence.
var ansiRE = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// followLagRE is the follower's lag as the bars and the plain lines word
// it.
var followLagRE = regexp.MustCompile(`applied (.+?), source at (.+?), (\d+\.\d)s behind, (\d+) changes \((\d+)/s\)`)

// TestFollowProgress: migrate --follow shows its lag live, through the
// progress display, in each --progress mode: under the bars a "follow
// stream" line (no bar), as plain "migrate follow:" lines, and as the
// "follow" object of the follow phase's JSON lines (source, applied,
// behind_s, changes, changes_per_s); each gets to the changes the test
// makes, applied and nothing behind, and shows a rate of changes while
// they come. SIGINT (the context) then stops the run with exit status 0.
func TestFollowProgress(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	const changes = 3
	for _, eng := range testenv.FollowEngines {
		for _, mode := range []string{progressview.Bars, progressview.Plain, progressview.JSON} {
			t.Run(eng.Name+"/"+mode, func(t *testing.T) {
				dsn := eng.Fresh(t)
				eng.Exec(t, dsn, followSchema(eng, 10, 20))
				m := writeFile(t, "follow.yaml", followMapping)
				_, table := testenv.DynamoDBTable(t)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var stdout, stderr stampedLines
				code := make(chan int, 1)
				go func() {
					code <- Run(ctx, []string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--create-table",
						"--checkpoint", filepath.Join(t.TempDir(), "c.json"), "--follow", "--progress", mode, "--progress-interval", "100ms"}, strings.NewReader(""), &stdout, &stderr)
				}()
				// lags are the lag's fields in what stderr shows so far:
				// source, applied, behind (s), changes, changes/s.
				lags := func() [][5]string {
					var out [][5]string
					if mode == progressview.JSON {
						for _, l := range strings.Split(stderr.String(), "\n") {
							var line progressview.JSONLine
							if json.Unmarshal([]byte(l), &line) != nil || line.Follow == nil {
								continue
							}
							if line.Phase != "follow" || line.Done != line.Follow.Changes {
								t.Errorf("a follow object in line %s", l)
							}
							f := line.Follow
							out = append(out, [5]string{f.Source, f.Applied, fmt.Sprint(f.Behind), fmt.Sprint(f.Changes), fmt.Sprint(f.ChangesPerS)})
						}
						return out
					}
					text := ansiRE.ReplaceAllString(stderr.String(), "\n")
					for _, l := range strings.Split(text, "\n") {
						prefix := "migrate follow: "
						if mode == progressview.Bars {
							prefix = "follow stream "
						}
						if m := followLagRE.FindStringSubmatch(l); m != nil && strings.HasPrefix(strings.TrimSpace(l), prefix) {
							out = append(out, [5]string{m[2], m[1], m[3], m[4], m[5]})
						}
					}
					return out
				}
				wait := func(what string, ok func([5]string) bool) {
					t.Helper()
					for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
						for _, l := range lags() {
							if ok(l) {
								return
							}
						}
						select {
						case c := <-code:
							t.Fatalf("migrate exited %d before %s:\n%s\n%s", c, what, stdout.String(), stderr.String())
						default:
						}
						if time.Now().After(deadline) {
							t.Fatalf("no lag shows %s within 2 minutes:\n%s", what, stderr.String())
						}
					}
				}
				wait("the follower", func([5]string) bool { return true })
				conn := eng.Connect(t, dsn)
				for i := range changes {
					if err := conn.Exec(context.Background(), fmt.Sprintf("UPDATE orders SET note = 'progress %d' WHERE id = %d", i, i+1)); err != nil {
						t.Fatal(err)
					}
				}
				num := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
				wait(fmt.Sprintf("%d changes applied at a rate", changes), func(l [5]string) bool { return num(l[3]) == changes && num(l[4]) > 0 })
				wait(fmt.Sprintf("%d changes applied, nothing behind", changes), func(l [5]string) bool {
					return num(l[3]) == changes && num(l[2]) == 0 && l[0] != "" && l[1] != ""
				})
				cancel()
				select {
				case c := <-code:
					if c != 0 {
						t.Fatalf("migrate exited %d after the stop:\n%s\n%s", c, stdout.String(), stderr.String())
					}
				case <-time.After(time.Minute):
					t.Fatal("migrate did not end within a minute of the stop")
				}
				if mode == progressview.Bars && strings.Contains(stderr.String(), "follow: applied") {
					t.Errorf("a lag line is printed among the bars:\n%s", stderr.String())
				}
			})
		}
	}
}
