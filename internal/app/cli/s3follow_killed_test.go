package cli

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/testsupport/importstandin"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestS3ImportFollowKilledAndResumed: a real remodel migrate --to
// s3://… --import --follow, with a workload changing the source all along,
// is killed with SIGKILL at a random moment (seeded; REMODEL_TEST_SEED
// repeats a run) of each of its phases: while its objects are written
// (the in-process S3 slows each upload), while the import runs (the
// stand-in of ImportTable in front of DynamoDB Local holds each object
// back), and while it follows. migrate --follow --resume then goes on:
// the objects written are kept, the import is found again by its client
// token (the stand-in saw one import, not two), and the changes since the
// objects' snapshot are applied. Once the workload stops and the follower
// caught up, SIGINT stops it (exit 0), verify passes, and follow-cleanup
// drops the slot. Both engines.
func TestS3ImportFollowKilledAndResumed(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	bin := buildRemodel(t)
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 4))
	backend := s3mem.New()
	if err := backend.CreateBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	faker := gofakes3.New(backend).Server()
	var slow atomic.Bool // the objects' uploads slowed, to be killed among them
	s3srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() && r.Method == http.MethodPut {
			select {
			case <-time.After(150 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
		faker.ServeHTTP(w, r)
	}))
	defer s3srv.Close()
	t.Setenv("AWS_ENDPOINT_URL_S3", s3srv.URL)
	store, err := s3out.Connect(context.Background(), s3out.Config{Endpoint: s3srv.URL, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, eng := range testenv.FollowEngines {
		for _, phase := range []string{"objects", "import", "follow"} {
			t.Run(eng.Name+"/"+phase, func(t *testing.T) {
				imp, err := importstandin.Start(endpoint, store)
				if err != nil {
					t.Fatal(err)
				}
				defer imp.Close()
				imp.Pace = 100 * time.Millisecond
				// 1000 orders in objects of 50 items: about 20 objects, as
				// many as the kill windows below count on, of half the
				// items (the objects' number is what the phases need).
				const customers, orders = 100, 1000
				dsn := eng.Fresh(t)
				eng.Exec(t, dsn, followSchema(eng, customers, orders))
				m := writeFile(t, "follow.yaml", followMapping)
				db, table := testenv.DynamoDBTable(t)
				ck := filepath.Join(t.TempDir(), "follow.checkpoint.json")
				base := []string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", imp.URL, "--table", table,
					"--to", "s3://bkt/" + table + "/", "--object-items", "50", "--writers", "2", "--import",
					"--checkpoint", ck, "--checkpoint-every", "100ms", "--follow", "--progress", "json", "--progress-interval", "1s"}
				conn := eng.Connect(t, dsn)
				// A change every 20 ms at most: still dozens in each
				// phase (writing the objects, the import, following), a
				// quarter of what the follower had to apply at 5 ms.
				work := startFollowWorkload(t, conn, rand.New(rand.NewPCG(seed, 5)), customers, orders, 20*time.Millisecond)
				defer work.stop(t)

				slow.Store(phase == "objects")
				first := startRemodel(t, bin, base...)
				in := func(what string, now func() bool) {
					t.Helper()
					for deadline := time.Now().Add(2 * time.Minute); !now(); time.Sleep(10 * time.Millisecond) {
						if first.Exited() || time.Now().After(deadline) {
							t.Fatalf("the first run did not reach %s (exited %v: %v):\n%s\n%s", what, first.Exited(), first.Err(), first.Stdout.String(), first.stderr.String())
						}
					}
				}
				var window time.Duration // the random moment's range
				switch phase {
				case "objects":
					in("its first object", func() bool { return checkpointObjects(ck) > 0 })
					window = time.Second // of about 20 objects, each 150 ms an upload, 2 at once
				case "import":
					in("its import", func() bool { return imp.Started.Load() > 0 })
					window = time.Second // of about 20 objects, each held 100 ms
				default:
					in("its follower", func() bool { return copyDone(ck) })
					window = 1500 * time.Millisecond
				}
				select {
				case <-first.Done():
					t.Fatalf("the first run ended in phase %s: %v\n%s\n%s", phase, first.Err(), first.Stdout.String(), first.stderr.String())
				case <-time.After(time.Duration(rng.Int64N(int64(window)))):
				}
				_ = first.Cmd.Process.Signal(syscall.SIGKILL)
				<-first.Done()
				slow.Store(false)
				t.Logf("killed in phase %s with %d objects in the checkpoint, %d imports started, copy done %v", phase, checkpointObjects(ck), imp.Started.Load(), copyDone(ck))

				resumed := startRemodel(t, bin, append(base, "--resume")...)
				for deadline := time.Now().Add(2 * time.Minute); len(resumed.stderr.follows(time.Time{})) == 0; time.Sleep(20 * time.Millisecond) {
					if resumed.Exited() || time.Now().After(deadline) {
						t.Fatalf("the resumed run did not follow (exited %v: %v):\n%s\n%s", resumed.Exited(), resumed.Err(), resumed.Stdout.String(), resumed.stderr.String())
					}
				}
				work.stop(t)
				stopCaughtUp(t, conn, db, table, resumed)
				if n, calls := imp.Started.Load(), imp.Calls.Load(); n != 1 || calls != 1 {
					t.Errorf("the stand-in of ImportTable saw %d imports (%d ImportTable requests), want 1 (the resumed run finds the import again by its client token)", n, calls)
				}
				if out := resumed.Stdout.String(); !strings.Contains(out, "stopped by a signal once every change committed before the stop was applied") {
					t.Errorf("the report does not say the follower was stopped by a signal:\n%s", out)
				} else if i := strings.Index(out, "stored after this run had listed the prefix"); i >= 0 {
					t.Logf("the resumed run deleted the late uploads of the killed one: %s", out[max(0, strings.LastIndex(out[:i], "\n")+1):i])
				}

				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				code, vout, verr := remodelCtx(t, ctx, "verify", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--seed", "1")
				if code != 0 {
					t.Errorf("verify exited %d:\n%s\n%s", code, vout, verr)
				}
				t.Setenv("REMODEL_SOURCE", "")
				if code, cout, cerr := remodelCtx(t, ctx, "follow-cleanup", "--checkpoint", ck); code != 0 {
					t.Errorf("follow-cleanup exited %d:\n%s\n%s", code, cout, cerr)
				}
			})
		}
	}
}

// checkpointObjects is how many objects the checkpoint at ck lists as
// uploaded (0 when there is none yet).
func checkpointObjects(ck string) int {
	var doc struct {
		S3 struct {
			Objects []json.RawMessage `json:"objects"`
		} `json:"s3"`
	}
	b, err := os.ReadFile(ck)
	if err != nil || json.Unmarshal(b, &doc) != nil {
		return 0
	}
	return len(doc.S3.Objects)
}
