package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// followSchema is customers (entity customer, only the active ones; 0 is
// the tests' sentinel, which only they change) and orders (entity order,
// keyed by customer_id and created_at as well as its key: the source
// sends its rows whole, FullRows).
func followSchema(eng testenv.FollowEngine, customers, orders int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `CREATE TABLE customers (id int PRIMARY KEY, name varchar(60) NOT NULL, active boolean NOT NULL);
CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, created_at %s NOT NULL, note varchar(40) NOT NULL);
%s`, eng.Timestamp, eng.FullRows("orders"))
	values := func(table string, n int, row func(i int) string) {
		for i := range n {
			switch {
			case i == 0:
				b.WriteString("INSERT INTO " + table + " VALUES ")
			case i%500 == 0:
				b.WriteString(";\nINSERT INTO " + table + " VALUES ")
			default:
				b.WriteString(", ")
			}
			b.WriteString(row(i))
		}
		b.WriteString(";\n")
	}
	values("customers", customers, func(i int) string { return fmt.Sprintf("(%d, 'customer %d', %v)", i, i, i%3 != 1) })
	values("orders", orders, func(i int) string {
		id := i + 1
		return fmt.Sprintf("(%d, %d, %s, 'n%d')", id, 1+id%(customers-1), followTime(time.Duration(id)*time.Minute), id)
	})
	return b.String()
}

func followTime(d time.Duration) string {
	return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(d).Format("'2006-01-02 15:04:05.000000'")
}

const followMapping = `version: 1
table: {name: follow, key: {pk: PK, sk: SK}}
entities:
  customer:
    from: customers
    where: active
    pk: "CUSTOMER#{id}"
    sk: PROFILE
  order:
    from: orders
    pk: "CUSTOMER#{customer_id}"
    sk: "ORDER#{created_at|iso}#{id|pad:9}"
access_patterns:
  ordersOfCustomer:
    entity: order
    query: {pk: "CUSTOMER#{customer_id}", sk: {begins_with: "ORDER#"}}
    sql: SELECT * FROM orders WHERE customer_id = {customer_id} ORDER BY created_at, id
`

// followChange is a random change to the follow schema's rows: an insert,
// a value update, an update that moves the item's key, a delete, a
// customer entering or leaving the entity's where, or two of them in one
// transaction.
func followChange(rng *rand.Rand, customers, orders int, next *int) []string {
	order := func() int { return 1 + rng.IntN(orders+*next) }
	customer := func() int { return 1 + rng.IntN(customers-1) }
	switch rng.IntN(6) {
	case 0:
		*next++
		return []string{fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, %s, 'new')", orders+*next, customer(), followTime(time.Duration(rng.IntN(1e6))*time.Second))}
	case 1:
		return []string{fmt.Sprintf("UPDATE orders SET note = 'note %d' WHERE id = %d", rng.IntN(1000), order())}
	case 2:
		return []string{fmt.Sprintf("UPDATE orders SET created_at = %s, customer_id = %d WHERE id = %d", followTime(time.Duration(rng.IntN(1e6))*time.Second), customer(), order())}
	case 3:
		return []string{fmt.Sprintf("DELETE FROM orders WHERE id = %d", order())}
	case 4:
		return []string{fmt.Sprintf("UPDATE customers SET active = NOT active WHERE id = %d", customer())}
	default:
		return []string{
			fmt.Sprintf("UPDATE orders SET created_at = %s WHERE id = %d", followTime(time.Duration(rng.IntN(1e6))*time.Second), order()),
			fmt.Sprintf("DELETE FROM orders WHERE id = %d", order()),
		}
	}
}

// stampedLines keeps the lines written to it with the time each came.
type stampedLines struct {
	mu    sync.Mutex
	buf   []byte
	lines []stampedLine
}

type stampedLine struct {
	at   time.Time
	text string
}

func (s *stampedLines) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		s.lines = append(s.lines, stampedLine{time.Now(), string(s.buf[:i])})
		s.buf = s.buf[i+1:]
	}
}

// follows returns the {"follow": ...} progress lines that came after t.
func (s *stampedLines) follows(t time.Time) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range s.lines {
		var line struct {
			Follow map[string]any `json:"follow"`
		}
		if l.at.After(t) && json.Unmarshal([]byte(l.text), &line) == nil && line.Follow != nil {
			out = append(out, line.Follow)
		}
	}
	return out
}

func (s *stampedLines) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, l := range s.lines {
		b.WriteString(l.text + "\n")
	}
	return b.String() + string(s.buf)
}

// remodelProc is a remodel process running in the background, its stderr
// lines stamped as they come.
type remodelProc struct {
	*testenv.Proc
	stderr stampedLines
}

func startRemodel(t *testing.T, bin string, args ...string) *remodelProc {
	t.Helper()
	p := &remodelProc{}
	p.Proc = testenv.StartProc(t, exec.Command(bin, args...), &p.stderr)
	return p
}

// TestFollowKilledAndResumed: a real remodel migrate --follow, with a
// workload changing the source all along, is killed with SIGKILL at a
// random moment after its copy (seeded; REMODEL_TEST_SEED repeats a run);
// more changes come; migrate --follow --resume goes on from the slot the
// dead run left. Once the workload stops and the JSON progress says
// nothing waits (after a sentinel change is in the table), SIGINT stops it:
// exit 0, a report saying it was stopped by a signal; verify passes, and
// follow-cleanup drops the slot.
func TestFollowKilledAndResumed(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	bin := buildRemodel(t)
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			const customers, orders = 100, 2000
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, followSchema(eng, customers, orders))
			m := writeFile(t, "follow.yaml", followMapping)
			db, table := testenv.DynamoDBTable(t)
			ck := filepath.Join(t.TempDir(), "follow.checkpoint.json")
			base := []string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table,
				"--checkpoint", ck, "--checkpoint-every", "100ms", "--follow", "--progress", "json", "--progress-interval", "1s", "--rate-limit", "1500"}

			conn := eng.Connect(t, dsn)
			work := startFollowWorkload(t, conn, rand.New(rand.NewPCG(seed, 3)), customers, orders, 5*time.Millisecond)
			defer work.stop(t)

			first := startRemodel(t, bin, append(base, "--create-table")...)
			for deadline := time.Now().Add(2 * time.Minute); !copyDone(ck); time.Sleep(10 * time.Millisecond) {
				if first.Exited() || time.Now().After(deadline) {
					t.Fatalf("the first run did not finish its copy (exited %v: %v):\n%s\n%s", first.Exited(), first.Err(), first.Stdout.String(), first.stderr.String())
				}
			}
			// Killed at a random moment of its following.
			select {
			case <-first.Done():
				t.Fatalf("the first run ended while following: %v\n%s\n%s", first.Err(), first.Stdout.String(), first.stderr.String())
			case <-time.After(time.Duration(rng.Int64N(int64(1500 * time.Millisecond)))):
			}
			_ = first.Cmd.Process.Signal(syscall.SIGKILL)
			<-first.Done()
			t.Logf("killed after %d follow progress lines", len(first.stderr.follows(time.Time{})))

			resumed := startRemodel(t, bin, append(base, "--resume")...)
			for deadline := time.Now().Add(2 * time.Minute); len(resumed.stderr.follows(time.Time{})) == 0; time.Sleep(20 * time.Millisecond) {
				if resumed.Exited() || time.Now().After(deadline) {
					t.Fatalf("the resumed run did not follow (exited %v: %v):\n%s\n%s", resumed.Exited(), resumed.Err(), resumed.Stdout.String(), resumed.stderr.String())
				}
			}
			work.stop(t)

			stopCaughtUp(t, conn, db, table, resumed)
			if out := resumed.Stdout.String(); !strings.Contains(out, "stopped by a signal once every change committed before the stop was applied") || !strings.Contains(out, "migrate --follow --resume --checkpoint "+ck) {
				t.Errorf("the report does not say the follower was stopped by a signal and how to go on:\n%s", out)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			code, vout, verr := remodelCtx(t, ctx, "verify", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--seed", "1")
			if code != 0 {
				t.Errorf("verify exited %d:\n%s\n%s", code, vout, verr)
			}
			slot := checkpointSlot(t, ck)
			if !strings.HasPrefix(slot, migrate.DefaultSlot(table, "")+"_") {
				t.Errorf("the slot of the migration into %s is %s", table, slot)
			}
			slots := func() int64 { // PostgreSQL's; 1 elsewhere
				if eng.Name != "postgres" {
					return 1
				}
				n, err := conn.Int(context.Background(), "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"+slot+"'")
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			if n := slots(); n != 1 {
				t.Fatalf("%d slots %s before follow-cleanup", n, slot)
			}
			t.Setenv("REMODEL_SOURCE", "")
			code, cout, cerr := remodelCtx(t, ctx, "follow-cleanup", "--checkpoint", ck) // the source the checkpoint names
			done := "nothing to drop on the source (its binlog keeps no position for remodel)"
			if eng.Name == "postgres" {
				done = "dropped replication slot " + slot + " and publication " + slot
			}
			if code != 0 || !strings.Contains(cout, done) {
				t.Errorf("follow-cleanup exited %d:\n%s\n%s", code, cout, cerr)
			}
			if n := slots(); eng.Name == "postgres" && n != 0 {
				t.Errorf("follow-cleanup left slot %s", slot)
			}
			if _, err := os.Stat(ck); err == nil {
				t.Error("follow-cleanup left the checkpoint")
			}
		})
	}
}

// followWorkload makes followChange's changes, one every pace at most,
// until stopped.
type followWorkload struct {
	halt    chan struct{}
	done    chan error
	changes int
	stopped bool
}

func startFollowWorkload(t *testing.T, conn testenv.SQLConn, rng *rand.Rand, customers, orders int, pace time.Duration) *followWorkload {
	t.Helper()
	w := &followWorkload{halt: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		next := 0
		tick := time.NewTicker(pace)
		defer tick.Stop()
		for {
			select {
			case <-w.halt:
				w.done <- nil
				return
			case <-tick.C:
			}
			if err := conn.Exec(context.Background(), followChange(rng, customers, orders, &next)...); err != nil {
				w.done <- err
				return
			}
			w.changes++
		}
	}()
	return w
}

// stop stops the workload (once) and fails the test if a change failed.
func (w *followWorkload) stop(t *testing.T) {
	t.Helper()
	if w.stopped {
		return
	}
	w.stopped = true
	close(w.halt)
	if err := <-w.done; err != nil {
		t.Fatalf("workload: %v", err)
	}
	t.Logf("%d changes by the workload", w.changes)
}

// stopCaughtUp waits until the following remodel p has caught up (a
// sentinel change, the last, is in the table, and a progress line after
// that says nothing waits), then stops it with SIGINT: it must exit 0.
func stopCaughtUp(t *testing.T, conn testenv.SQLConn, db *dynamodb.Client, table string, p *remodelProc) {
	t.Helper()
	if err := conn.Exec(context.Background(), "UPDATE customers SET name = 'sentinel' WHERE id = 0"); err != nil {
		t.Fatal(err)
	}
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "CUSTOMER#0"}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"}}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
		if err == nil {
			if n, ok := out.Item["name"].(*types.AttributeValueMemberS); ok && n.Value == "sentinel" {
				break
			}
		}
		if p.Exited() || time.Now().After(deadline) {
			t.Fatalf("the sentinel change did not reach the table (exited %v: %v):\n%s", p.Exited(), p.Err(), p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	seen := time.Now()
	for caughtUp := false; !caughtUp; time.Sleep(50 * time.Millisecond) {
		for _, st := range p.stderr.follows(seen) {
			if st["behind_s"] == 0.0 {
				caughtUp = true
			}
		}
		if !caughtUp && (p.Exited() || time.Now().After(deadline)) {
			t.Fatalf("no progress line says the follower caught up (exited %v: %v):\n%s", p.Exited(), p.Err(), p.stderr.String())
		}
	}
	_ = p.Cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.Done():
	case <-time.After(time.Minute):
		t.Fatal("the run did not end within a minute of SIGINT")
	}
	if code := exitCode(t, p.Err()); code != 0 {
		t.Fatalf("the run exited %d after SIGINT:\n%s\n%s", code, p.Stdout.String(), p.stderr.String())
	}
}

// copyDone says whether the followed migration's checkpoint at ck says
// its copy is done (the follower started).
func copyDone(ck string) bool {
	var doc struct {
		Follow struct {
			CopyDone bool `json:"copy_done"`
		} `json:"follow"`
	}
	b, err := os.ReadFile(ck)
	return err == nil && json.Unmarshal(b, &doc) == nil && doc.Follow.CopyDone
}

// checkpointSlot is the replication slot a followed migration's checkpoint
// names.
func checkpointSlot(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ck struct {
		Follow struct {
			Slot string `json:"slot"`
		} `json:"follow"`
	}
	if err := json.Unmarshal(b, &ck); err != nil {
		t.Fatal(err)
	}
	return ck.Follow.Slot
}
