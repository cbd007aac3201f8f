package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// killedMapping maps two tables: items (one key column; a row whose k is
// NULL is rejected) and events (a two-column key).
const killedMapping = `version: 1
table:
  name: killed
  key: {pk: PK, sk: SK}
entities:
  item:
    from: items
    pk: "ITEM#{k}"
    sk: "ITEM"
  event:
    from: events
    pk: "USER#{user_id}"
    sk: "EVENT#{seq}"
access_patterns:
  eventsOfUser:
    entity: event
    query: {pk: "USER#{user_id}"}
    sql: SELECT * FROM events WHERE user_id = {user_id} ORDER BY seq
`

// killedSharedMapping adds to killedMapping an entity built from items
// too, with a where: the two are read by one shared read, whose rows are
// rejected for one entity (k NULL) and written for the other.
var killedSharedMapping = strings.Replace(killedMapping, "  event:\n", `  odd:
    from: items
    where: "id % 2 = 1"
    pk: "ODD#{id}"
    sk: "ODD"
  event:
`, 1)

// killedData makes the two tables on eng's database at dsn: nItems items
// (every 97th with a NULL k, rejected) and nUsers*perUser events.
func killedData(t *testing.T, eng, dsn string, nItems, nUsers, perUser int) (rows, rejected int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("CREATE TABLE items (id INT PRIMARY KEY, k VARCHAR(20), body VARCHAR(200));\n")
	b.WriteString("CREATE TABLE events (user_id INT, seq INT, what VARCHAR(40), PRIMARY KEY (user_id, seq));\n")
	for i := 1; i <= nItems; i++ {
		if i%500 == 1 {
			if i > 1 {
				b.WriteString(";\n")
			}
			b.WriteString("INSERT INTO items VALUES ")
		} else {
			b.WriteString(", ")
		}
		k := "'k" + strconv.Itoa(i) + "'"
		if i%97 == 0 {
			k, rejected = "NULL", rejected+1
		}
		fmt.Fprintf(&b, "(%d, %s, '%s')", i, k, strings.Repeat("x", i%150))
	}
	b.WriteString(";\n")
	n := 0
	for u := 1; u <= nUsers; u++ {
		for s := 1; s <= perUser; s++ {
			if n%500 == 0 {
				if n > 0 {
					b.WriteString(";\n")
				}
				b.WriteString("INSERT INTO events VALUES ")
			} else {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(%d, %d, 'event %d of %d')", u, s, s, u)
			n++
		}
	}
	b.WriteString(";\n")
	for _, e := range testenv.Engines {
		if e.Name == eng {
			e.Exec(t, dsn, b.String())
		}
	}
	return nItems + n, rejected
}

// remodelBin is the remodel command the tests run as a process of its
// own: built once for the package by the first buildRemodel (a build per
// test linked the same binary again, seconds each), in a folder of its
// own that TestMain removes. No test writes to it or beside it.
var remodelBin struct {
	once      sync.Once
	dir, path string
	err       error
}

// buildRemodel returns bin/remodel, built (once for the package) into a
// temporary folder.
func buildRemodel(t *testing.T) string {
	t.Helper()
	remodelBin.once.Do(func() {
		if remodelBin.dir, remodelBin.err = os.MkdirTemp("", "remodel-cli-test-"); remodelBin.err != nil {
			return
		}
		remodelBin.path = filepath.Join(remodelBin.dir, "remodel")
		cmd := exec.Command("go", "build", "-o", remodelBin.path, "github.com/remodel-dev/remodel/cmd/remodel")
		if out, err := cmd.CombinedOutput(); err != nil {
			remodelBin.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if remodelBin.err != nil {
		t.Fatal(remodelBin.err)
	}
	return remodelBin.path
}

// testSeed is the seed of a test's random moments: REMODEL_TEST_SEED, or
// the clock; it is logged so that a run can be repeated.
func testSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("REMODEL_TEST_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (REMODEL_TEST_SEED=%d repeats it)", seed, seed)
	return seed
}

// TestKilledAndResumed: a real remodel migrate (each table read as 3 key
// ranges by 3 readers), killed with SIGKILL at a
// random moment (seeded; REMODEL_TEST_SEED repeats a run), is resumed with
// --resume, which is itself killed at random moments a few times, until a
// resumed run finishes. The table is then exact: verify (counts, every
// item attribute by attribute, no stray item, the access pattern) passes
// with the rejects file, which lists every rejected row exactly once, and
// the table holds exactly one item per row that was not rejected. Two
// rounds (jobs) on each engine, the second with a mapping whose table
// items is read once for two entities (a shared read).
func TestKilledAndResumed(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	bin := buildRemodel(t)
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn := e.Fresh(t)
			rows, rejected := killedData(t, e.Name, dsn, 1500, 60, 25) // 750 odd ids
			plain := writeFile(t, "killed.yaml", killedMapping)
			shared := writeFile(t, "killed-shared.yaml", killedSharedMapping)
			for round := range 2 { // each a new job into a new table
				t.Run("round "+strconv.Itoa(round+1), func(t *testing.T) {
					m, rows := plain, rows
					if round == 1 { // items read once for two entities
						m, rows = shared, rows+750
					}
					db, table := testenv.DynamoDBTable(t)
					dir := t.TempDir()
					ck := filepath.Join(dir, "killed.checkpoint.json")
					rj := filepath.Join(dir, "rejects.jsonl")
					base := []string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table,
						"--checkpoint", ck, "--checkpoint-every", "100ms", "--rejects", rj, "--max-rejects", "1000", "--writers", "3", "--rate-limit", "1000", "--readers", "3", "--ranges", "3"}

					run := func(args []string, kill, settle bool) (killed bool, code int, out string) {
						t.Helper()
						cmd := exec.Command(bin, args...)
						var stdout, stderr bytes.Buffer
						cmd.Stdout, cmd.Stderr = &stdout, &stderr
						if err := cmd.Start(); err != nil {
							t.Fatal(err)
						}
						done := make(chan error, 1)
						go func() { done <- cmd.Wait() }()
						if kill {
							// Kill once the checkpoint exists (a run killed before
							// it took the lock and saved has nothing to resume),
							// somewhere in the next 2.5 s (a whole run, at 1000
							// items a second, takes 3). The last run that is killed
							// (settle) waits first for the checkpoint to hold rows
							// settled, if no earlier run's does: on a loaded machine
							// every kill could otherwise come before the first
							// settled rows, and the last run would have nothing
							// settled to resume after.
							for range 3000 {
								if _, err := os.Stat(ck); err == nil && (!settle || checkpointRows(ck) > 0) {
									break
								}
								select {
								case err := <-done:
									return false, exitCode(t, err), stdout.String() + stderr.String()
								case <-time.After(5 * time.Millisecond):
								}
							}
							select {
							case err := <-done:
								return false, exitCode(t, err), stdout.String() + stderr.String()
							case <-time.After(time.Duration(rng.Int64N(int64(2500 * time.Millisecond)))):
							}
							_ = cmd.Process.Signal(syscall.SIGKILL)
						}
						err := <-done
						var ee *exec.ExitError
						if kill && errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signaled() {
							return true, -1, stdout.String() + stderr.String()
						}
						return false, exitCode(t, err), stdout.String() + stderr.String()
					}

					killed, code, out := run(append(base, "--create-table"), true, false)
					kills := 0
					for killed && kills < 4 {
						kills++
						checkRejectsOnce(t, rj)
						t.Logf("kill %d: the table holds %d items (the lock item included), the checkpoint %d rows settled", kills, count(t, db, table), checkpointRows(ck))
						killed, code, out = run(append(base, "--resume"), kills < 4, kills == 3)
					}
					t.Logf("%d kills", kills)
					if kills == 0 {
						t.Fatalf("the first run finished before it was killed:\n%s", out)
					}
					if code != 0 {
						t.Fatalf("the last run exited %d:\n%s", code, out)
					}
					if kills > 0 {
						earlier := regexp.MustCompile(`resumed from ` + regexp.QuoteMeta(ck) + `: the counts include (\d+) rows`).FindStringSubmatch(out)
						if earlier == nil || earlier[1] == "0" {
							t.Errorf("the last report does not say it resumed after rows the earlier runs settled:\n%s", out)
						}
					}
					want := fmt.Sprintf(`(?m)^  total +%d +%d +%d( |$)`, rows, rows-rejected, rejected)
					if !regexpMatch(want, out) {
						t.Errorf("the last report does not count the whole job (%d rows, %d items, %d rejected):\n%s", rows, rows-rejected, rejected, out)
					}
					if got := checkRejectsOnce(t, rj); got != rejected {
						t.Errorf("the rejects file lists %d rows, want %d", got, rejected)
					}
					if n := count(t, db, table); n != int64(rows-rejected) {
						t.Errorf("the table holds %d items, want %d", n, rows-rejected)
					}
					if _, err := os.Stat(ck); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("the checkpoint of the finished job is still there: %v", err)
					}
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					defer cancel()
					code, vout, verr := remodelCtx(t, ctx, "verify", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--rejects", rj, "--seed", "1")
					if code != 0 {
						t.Errorf("verify exited %d:\n%s\n%s", code, vout, verr)
					}
				})
			}
		})
	}
}

// checkpointRows is how many rows the checkpoint at ck counts as settled
// (0 when there is none, or none yet).
func checkpointRows(ck string) int64 {
	var doc struct {
		Entities []struct {
			Rows int64 `json:"rows"`
		} `json:"entities"`
	}
	b, err := os.ReadFile(ck)
	if err != nil || json.Unmarshal(b, &doc) != nil {
		return 0
	}
	var n int64
	for _, e := range doc.Entities {
		n += e.Rows
	}
	return n
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// checkRejectsOnce fails the test if a row is listed twice in the rejects
// file, and returns how many rows it lists.
func checkRejectsOnce(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" {
			continue
		}
		if seen[line] {
			t.Errorf("the rejects file lists a row twice: %s", line)
		}
		seen[line] = true
		n++
	}
	return n
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

// TestInterruptedThenResumed: SIGINT to a real remodel migrate: exit 130,
// the checkpoint saved and the report saying how to resume. --resume with
// another mapping file is refused with exit status 3 and writes nothing;
// with the same one it finishes the job, and verify passes.
func TestInterruptedThenResumed(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	bin := buildRemodel(t)
	dsn := testenv.Postgres(t)
	rows, rejected := killedData(t, "postgres", dsn, 1500, 60, 25)
	m := writeFile(t, "killed.yaml", killedMapping)
	db, table := testenv.DynamoDBTable(t)
	dir := t.TempDir()
	ck := filepath.Join(dir, "job.json")
	rj := filepath.Join(dir, "rejects.jsonl")
	args := []string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table,
		"--checkpoint", ck, "--checkpoint-every", "100ms", "--rejects", rj, "--max-rejects", "1000", "--rate-limit", "1000"}

	cmd := exec.Command(bin, append(args, "--create-table")...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for _, err := os.Stat(ck); err != nil && time.Now().Before(deadline); _, err = os.Stat(ck) {
		time.Sleep(20 * time.Millisecond) // the table exists once the checkpoint does
	}
	for time.Now().Before(deadline) && count(t, db, table) < 500 {
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	if code := exitCode(t, cmd.Wait()); code != exitInterrupted {
		t.Fatalf("exit %d after SIGINT:\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "migrate --resume --checkpoint "+ck+" --table "+table+" continues from there") {
		t.Errorf("the report does not say how to resume:\n%s", stdout.String())
	}
	if _, err := os.Stat(ck); err != nil {
		t.Fatalf("no checkpoint after SIGINT: %v", err)
	}
	before := count(t, db, table)

	other := writeFile(t, "other.yaml", killedMapping+"# changed\n")
	otherArgs := append([]string(nil), args...)
	otherArgs[4] = other
	out, err := exec.Command(bin, append(otherArgs, "--resume")...).CombinedOutput()
	if code := exitCode(t, err); code != exitError || !strings.Contains(string(out), "belongs to another migration: the mapping file changed since") {
		t.Errorf("resume with another mapping: exit %d:\n%s", code, out)
	}
	if n := count(t, db, table); n != before {
		t.Errorf("the refused resume changed the table: %d items, before %d", n, before)
	}

	out, err = exec.Command(bin, append(args, "--resume")...).CombinedOutput()
	if code := exitCode(t, err); code != 0 {
		t.Fatalf("resume: exit %d:\n%s", code, out)
	}
	if n := count(t, db, table); n != int64(rows-rejected) {
		t.Errorf("the table holds %d items, want %d", n, rows-rejected)
	}
	if got := checkRejectsOnce(t, rj); got != rejected {
		t.Errorf("the rejects file lists %d rows, want %d", got, rejected)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, vout, verr := remodelCtx(t, ctx, "verify", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--rejects", rj, "--seed", "1")
	if code != 0 {
		t.Errorf("verify exited %d:\n%s\n%s", code, vout, verr)
	}
}
