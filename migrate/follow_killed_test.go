package migrate_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// killedExamples is how many examples per engine TestFollowExamplesKilled
// runs. All twelve (six examples, two engines) take about 45 s here,
// build included, and the migrate package already takes about 7 minutes
// of its 10 on two shared cores; so each run takes a subset chosen by its
// seed, a different one each run, and over a few runs every example
// comes up. REMODEL_TEST_KILL_ALL=1 runs them all.
const killedExamples = 2

// TestFollowExamplesKilled: the shipped examples followed by a real
// remodel migrate --follow (a child process, as an operator runs it),
// killed with SIGKILL at a random moment of the workload and resumed with
// --follow --resume. Per engine, killedExamples of the examples, chosen by
// the seed (logged; REMODEL_TEST_SEED repeats a run). The workload's
// transactions are cut at two random points: the first part is committed
// while the follower applies changes, and the follower is killed 0 to 5
// of its lag lines (100 ms each) after the part's last commit: before,
// while or after it applies and acknowledges them; the second part is
// committed while no one follows; the third once the resumed follower
// applies changes. After a sentinel change is in the table and a lag line
// after it says nothing waits, SIGINT stops the follower: exit 0, a report
// (--output json) saying it was stopped with nothing rejected, and the
// table must be the source exactly (verify, and as many items per entity
// as source rows). The changes made during the copy are
// TestFollowExamples' (in process, where a gate holds the copy).
func TestFollowExamplesKilled(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	bin := buildRemodel(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("REMODEL_TEST_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (REMODEL_TEST_SEED=%d repeats it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 17))
	all := os.Getenv("REMODEL_TEST_KILL_ALL") == "1"
	for _, eng := range testenv.FollowEngines {
		examples := followExamples(eng.Name)
		run := rng.Perm(len(examples))
		if !all {
			run = run[:killedExamples]
		}
		for _, i := range run {
			ex := examples[i]
			cut1, cut2, wait := rng.Float64(), rng.Float64(), rng.IntN(6)
			t.Run(ex.dir+"/"+eng.Name, func(t *testing.T) {
				t.Parallel() // each its own database, table, slot and process; its random points drawn above
				x := loadFollowed(t, eng, ex)
				db := newDB(t, endpoint)
				table := tableName(t, db)
				ck := filepath.Join(t.TempDir(), "job.checkpoint.json")
				args := []string{"migrate", "--source", x.dsn, "-m", x.mapping, "--endpoint-url", endpoint, "--table", table,
					"--checkpoint", ck, "--checkpoint-every", "100ms", "--rejects", filepath.Join(t.TempDir(), "rejects.jsonl"),
					"--follow", "--progress", "json", "--progress-interval", "100ms", "--output", "json"}
				n := len(x.workload)
				a := int(cut1 * float64(n+1))
				b := a + int(cut2*float64(n-a+1))
				t.Logf("%d transactions: %d before the kill, %d while stopped, %d after the resume", n, a, b-a, n-b)

				first := startProc(t, bin, append(args, "--create-table")...)
				first.following(t)
				x.apply(t, 0, a)
				// The kill: after 0 to 5 more lag lines (one every 100 ms),
				// while the follower receives, applies or acknowledges
				// the first part, or after it did.
				lines := first.stderr.count() + wait
				for deadline := time.Now().Add(2 * time.Minute); first.stderr.count() < lines; time.Sleep(10 * time.Millisecond) {
					if first.Exited() || time.Now().After(deadline) {
						t.Fatalf("remodel stopped showing its lag (exited %v: %v):\n%s", first.Exited(), first.Err(), first.stderr.String())
					}
				}
				_ = first.Cmd.Process.Signal(syscall.SIGKILL)
				<-first.Done()
				t.Logf("killed %d lag lines after the first part's last commit", wait)

				x.apply(t, a, b)
				resumed := startProc(t, bin, append(args, "--resume")...)
				resumed.following(t)
				x.apply(t, b, n)
				if applied := x.sentinelChange(t, db, table); applied != nil {
					resumed.caughtUp(t, applied)
				}
				_ = resumed.Cmd.Process.Signal(syscall.SIGINT)
				select {
				case <-resumed.Done():
				case <-time.After(2 * time.Minute):
					t.Fatal("the resumed follower did not end within 2 minutes of SIGINT")
				}
				if resumed.Err() != nil {
					t.Fatalf("the resumed follower: %v\n%s\n%s", resumed.Err(), resumed.Stdout.String(), resumed.stderr.String())
				}
				var rep struct {
					Rejected int64                 `json:"rejected"`
					Follow   *migrate.FollowReport `json:"follow"`
				}
				if err := json.Unmarshal(resumed.Stdout.Bytes(), &rep); err != nil || rep.Follow == nil || !rep.Follow.Stopped {
					t.Fatalf("the resumed follower's report (%v):\n%s", err, resumed.Stdout.String())
				}
				x.checkFollowed(t, rep.Follow, rep.Rejected, db, table)
			})
		}
	}
}

// buildRemodel builds the remodel command into the test's directory.
func buildRemodel(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "remodel")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/remodel-dev/remodel/cmd/remodel").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// proc is a remodel migrate --follow process, its lag lines read as they
// come.
type proc struct {
	*testenv.Proc
	stderr lagLines
}

// startProc starts remodel with args, with DynamoDB Local's credentials;
// it is killed when the test ends, if it still runs.
func startProc(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_SESSION_TOKEN=",
		"AWS_REGION=us-east-1", "AWS_PROFILE=", "AWS_CONFIG_FILE="+os.DevNull, "AWS_SHARED_CREDENTIALS_FILE="+os.DevNull,
		"AWS_EC2_METADATA_DISABLED=true")
	p.Proc = testenv.StartProc(t, cmd, &p.stderr)
	return p
}

// following waits for the process's first lag line: its copy is done
// and it applies changes.
func (p *proc) following(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); p.stderr.count() == 0; time.Sleep(20 * time.Millisecond) {
		if p.Exited() || time.Now().After(deadline) {
			t.Fatalf("remodel did not follow (exited %v: %v):\n%s\n%s", p.Exited(), p.Err(), p.Stdout.String(), p.stderr.String())
		}
	}
}

// caughtUp waits until the table shows the sentinel change (applied),
// then for a lag line written after that with nothing behind.
func (p *proc) caughtUp(t *testing.T, applied func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !applied() {
		if p.Exited() || time.Now().After(deadline) {
			t.Fatalf("the sentinel change did not reach the table (exited %v: %v):\n%s", p.Exited(), p.Err(), p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	for seen := time.Now(); !p.stderr.caughtUp(seen); time.Sleep(20 * time.Millisecond) {
		if p.Exited() || time.Now().After(deadline) {
			t.Fatalf("no lag line says nothing waits (exited %v: %v):\n%s", p.Exited(), p.Err(), p.stderr.String())
		}
	}
}

// lagLines is a process's stderr: its text, and the lag of each line of
// --progress json that has one, with the moment it came.
type lagLines struct {
	mu   sync.Mutex
	text bytes.Buffer
	part []byte
	lags []stampedBehind
}

type stampedBehind struct {
	at     time.Time
	behind float64
}

func (l *lagLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text.Write(p)
	l.part = append(l.part, p...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		var line struct {
			Follow *struct {
				Behind float64 `json:"behind_s"`
			} `json:"follow"`
		}
		if json.Unmarshal(l.part[:i], &line) == nil && line.Follow != nil {
			l.lags = append(l.lags, stampedBehind{time.Now(), line.Follow.Behind})
		}
		l.part = l.part[i+1:]
	}
}

func (l *lagLines) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lags)
}

// caughtUp says whether a lag line that came after t has nothing behind.
func (l *lagLines) caughtUp(t time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, g := range l.lags {
		if g.at.After(t) && g.behind == 0 {
			return true
		}
	}
	return false
}

func (l *lagLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String()
}
