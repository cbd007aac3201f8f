package migrate_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// slowDB returns a client whose BatchWriteItem answers come delay late, so
// that a run lasts a while.
func slowDB(t *testing.T, endpoint string, delay time.Duration) *dynamo.Client {
	t.Helper()
	p, err := faultproxy.New(endpoint, 1)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(faultproxy.NewLate(p, delay, faultproxy.BatchWriteItem))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); p.Close() })
	return newDB(t, srv.URL)
}

// lockItem reads the table's lock item (nil if there is none).
func lockItem(t *testing.T, db dynamo.API, fx *fixture, table string) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: fx.plan.Table.LockKey(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("reading the lock item: %v", err)
	}
	return out.Item
}

// TestLockConcurrent starts a second migrate into a table a first one is
// writing: the second is refused, naming the first (owner, host, pid,
// start, heartbeat), writes nothing and leaves the first's lock alone; the
// first refreshes its heartbeat, finishes, and removes its lock.
func TestLockConcurrent(t *testing.T) {
	t.Parallel()
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	direct := newDB(t, endpoint)
	table := tableName(t, direct)

	first := fx.options(slowDB(t, endpoint, 50*time.Millisecond), table)
	first.CreateTable = true
	first.LockStale = 400 * time.Millisecond // a heartbeat every 100ms
	type result struct {
		rep *migrate.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := migrate.Run(testContext(t), first)
		done <- result{rep, err}
	}()

	waitWriting(t, direct, table)
	lock := lockItem(t, direct, fx, table)
	if lock == nil {
		t.Fatal("the first run writes without a lock item")
	}
	host, _ := os.Hostname()
	if testenv.AttrText(lock, "remodel_host") != host || testenv.AttrText(lock, "remodel_pid") != strconv.Itoa(os.Getpid()) || len(testenv.AttrText(lock, "remodel_owner")) != 16 {
		t.Errorf("lock item %v: want this host %s, pid %d and a 16-digit owner", lock, host, os.Getpid())
	}

	second := fx.options(newDB(t, endpoint), table)
	second.AllowNonEmpty = true
	rep, err := migrate.Run(testContext(t), second)
	want := regexp.MustCompile(`^migrate: table ` + table + ` is locked by another migrate run: owner ` + testenv.AttrText(lock, "remodel_owner") +
		` on host ` + regexp.QuoteMeta(host) + ` \(pid ` + strconv.Itoa(os.Getpid()) + `\), started \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, last heartbeat \ds ago; ` +
		`refusing to write into it at the same time \(a lock whose heartbeat is older than 2m0s is taken over; if that run was interrupted, migrate --resume takes its lock over at once\)$`)
	if err == nil || !want.MatchString(err.Error()) {
		t.Errorf("second run: %v\nwant %s", err, want)
	}
	if rep.ItemsWritten != 0 || rep.OK || rep.Partial {
		t.Errorf("second run: %d items written, ok %v, partial %v", rep.ItemsWritten, rep.OK, rep.Partial)
	}

	// The first run's lock is still there, and its heartbeat moves on while
	// the run goes on: watch the lock item until a later heartbeat shows up
	// (a refresh is due every 100ms; a loaded machine may take much longer).
	again := lockItem(t, direct, fx, table)
	if again == nil || testenv.AttrText(again, "remodel_owner") != testenv.AttrText(lock, "remodel_owner") {
		t.Fatalf("the first run's lock is gone or changed after the second run: %v", again)
	}
	hb1, _ := strconv.ParseInt(testenv.AttrText(again, "remodel_heartbeat"), 10, 64)
	var r result
	running := true
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		select {
		case r = <-done:
			running = false
		default:
		}
		later := lockItem(t, direct, fx, table)
		if later != nil && testenv.AttrText(later, "remodel_owner") != testenv.AttrText(lock, "remodel_owner") {
			t.Fatalf("the first run's lock changed owner: %v", later)
		}
		hb2, _ := strconv.ParseInt(testenv.AttrText(later, "remodel_heartbeat"), 10, 64)
		if later != nil && hb2 > hb1 {
			break
		}
		if !running || later == nil {
			t.Fatalf("the first run's heartbeat never moved from %d (refreshed every 100ms) before its lock was gone (run ended: %v)", hb1, !running)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first run's heartbeat did not move from %d in 30s, with a refresh due every 100ms", hb1)
		}
	}
	if running {
		r = <-done
	}

	if r.err != nil {
		t.Fatalf("first run: %v", r.err)
	}
	checkLanded(t, fx, r.rep, direct, table)
	checkNoLock(t, direct, fx, table)
}

// TestLockStale: a lock item whose heartbeat is older than the staleness
// limit (its run died) is taken over, and the report says whose it was.
// The lock item does not make the table non-empty.
func TestLockStale(t *testing.T) {
	t.Parallel()
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[1%len(testenv.Engines)])
	db := newDB(t, endpoint)
	table := tableName(t, db)
	ctx := testContext(t)
	if err := migrate.CreateTable(ctx, db, &fx.plan.Table, table, time.Minute); err != nil {
		t.Fatal(err)
	}
	dead := fx.plan.Table.LockKey()
	dead["remodel_owner"] = &types.AttributeValueMemberS{Value: "deadbeefdeadbeef"}
	dead["remodel_host"] = &types.AttributeValueMemberS{Value: "gone.example"}
	dead["remodel_pid"] = &types.AttributeValueMemberN{Value: "4242"}
	dead["remodel_started"] = &types.AttributeValueMemberS{Value: "2024-06-01T10:00:00Z"}
	dead["remodel_heartbeat"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Add(-time.Hour).UnixMilli(), 10)}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: dead}); err != nil {
		t.Fatal(err)
	}
	written := time.Now()
	rep, err := migrate.Run(ctx, fx.options(db, table))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	// The heartbeat's age is rounded to the second: an hour, plus however
	// long the run took to get to the lock on a loaded machine.
	wantRE := regexp.MustCompile(`^took over a stale lock on table ` + table + `: owner deadbeefdeadbeef on host gone\.example \(pid 4242\), started 2024-06-01T10:00:00Z, last heartbeat 1h0m(\d+)s ago \(older than 2m0s: that run is taken to have died\)$`)
	var m []string
	if len(rep.Warnings) == 1 {
		m = wantRE.FindStringSubmatch(rep.Warnings[0])
	}
	if m == nil {
		t.Fatalf("warnings %q\nwant %s", rep.Warnings, wantRE)
	}
	if sec, _ := strconv.Atoi(m[1]); time.Duration(sec)*time.Second > time.Since(written)+time.Second {
		t.Errorf("the warning says the heartbeat is 1h0m%ds old; it was an hour old %s ago", sec, time.Since(written).Round(time.Second))
	}
	want := rep.Warnings[0]
	var text strings.Builder
	report.Write(&text, report.Text, rep)
	if !strings.Contains(text.String(), "  warning: "+want+"\n") {
		t.Errorf("the text report does not warn of the lock taken over:\n%s", text.String())
	}
	checkLanded(t, fx, rep, db, table)
	checkNoLock(t, db, fx, table)
}

// TestLockLost: a run whose lock another run takes over (here: overwritten
// by hand) stops at its next heartbeat with an error saying so, and leaves
// the other run's lock in place.
func TestLockLost(t *testing.T) {
	t.Parallel()
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	direct := newDB(t, endpoint)
	table := tableName(t, direct)
	o := fx.options(slowDB(t, endpoint, 50*time.Millisecond), table)
	o.CreateTable = true
	o.LockStale = 400 * time.Millisecond
	errc := make(chan error, 1)
	var rep *migrate.Report
	go func() {
		var err error
		rep, err = migrate.Run(testContext(t), o)
		errc <- err
	}()
	waitWriting(t, direct, table)
	other := fx.plan.Table.LockKey()
	other["remodel_owner"] = &types.AttributeValueMemberS{Value: "0123456789abcdef"}
	other["remodel_heartbeat"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().UnixMilli(), 10)}
	if _, err := direct.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: other}); err != nil {
		t.Fatal(err)
	}
	err := <-errc
	want := fmt.Sprintf("migrate: lost the lock on table %s: another run took it over or removed it (this run's heartbeat was older than 400ms); stopping", table)
	if err == nil || err.Error() != want {
		t.Fatalf("Run: %v\nwant %s", err, want)
	}
	if rep.OK || !rep.Partial || rep.Interrupted {
		t.Errorf("report: ok %v, partial %v, interrupted %v", rep.OK, rep.Partial, rep.Interrupted)
	}
	if w := "the lock item of table " + table + " belongs to another run now: left it in place"; len(rep.Warnings) != 1 || rep.Warnings[0] != w {
		t.Errorf("warnings %q, want %q", rep.Warnings, w)
	}
	if got := lockItem(t, direct, fx, table); testenv.AttrText(got, "remodel_owner") != "0123456789abcdef" {
		t.Errorf("the other run's lock was not left in place: %v", got)
	}
	if n, _ := scan(t, direct, table); n != rep.ItemsWritten+1 { // the lock item is no entity's
		t.Errorf("report: %d items written, the table holds %d (and the lock)", rep.ItemsWritten, n-1)
	}
}

// TestLockReleasedOnRefusal: a run refused after it took the lock (the
// table holds items) removes its lock.
func TestLockReleasedOnRefusal(t *testing.T) {
	t.Parallel()
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	db := newDB(t, endpoint)
	table := tableName(t, db)
	ctx := testContext(t)
	if err := migrate.CreateTable(ctx, db, &fx.plan.Table, table, time.Minute); err != nil {
		t.Fatal(err)
	}
	putItems(t, db, table, "OLD#1")
	_, err := migrate.Run(ctx, fx.options(db, table))
	if want := "migrate: table " + table + " already holds items: refusing to write into it (--allow-non-empty writes anyway; items with the same key are replaced)"; err == nil || err.Error() != want {
		t.Errorf("Run: %v\nwant %s", err, want)
	}
	checkNoLock(t, db, fx, table)
}

// putItems puts items of no entity with the given partition keys.
func putItems(t *testing.T, db dynamo.API, table string, pks ...string) {
	t.Helper()
	for _, pk := range pks {
		_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "X"},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// waitWriting waits until the table exists and holds more than the lock
// item.
func waitWriting(t *testing.T, db dynamo.API, table string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), Limit: aws.Int32(2)})
		if err == nil && len(out.Items) > 1 {
			return
		}
	}
	t.Fatalf("nothing was written into %s within a minute", table)
}

// TestLockOfDeadProcess: a lock item whose heartbeat is fresh but whose run
// was on this host and is gone (killed -9 after taking the lock) is taken
// over at once, without waiting for it to go stale, as is one whose pid a
// process that started at another time has taken since; one whose process
// still runs here, or ran on another host (which cannot be asked), refuses
// the run.
func TestLockOfDeadProcess(t *testing.T) {
	t.Parallel()
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	// A process that ran on this host and is gone: started, killed, reaped.
	gone := exec.Command("sleep", "600")
	if err := gone.Start(); err != nil {
		t.Fatal(err)
	}
	deadPID := gone.Process.Pid
	_ = gone.Process.Kill()
	_ = gone.Wait()
	// A process that runs on this host for the whole test.
	live := exec.Command("sleep", "600")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = live.Process.Kill(); _ = live.Wait() })
	livePID := live.Process.Pid

	for _, c := range []struct {
		name      string
		host      string
		pid       int
		pidStart  string // "": not recorded (a lock of an older remodel)
		takenOver bool
	}{
		{"dead pid on this host", host, deadPID, "", true},
		{"live pid on this host", host, livePID, "", false},
		{"live pid reused by another process", host, livePID, "1", true},
		{"pid on another host", "elsewhere.example", deadPID, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := newDB(t, endpoint)
			table := tableName(t, db)
			ctx := testContext(t)
			if err := migrate.CreateTable(ctx, db, &fx.plan.Table, table, time.Minute); err != nil {
				t.Fatal(err)
			}
			held := fx.plan.Table.LockKey()
			held["remodel_owner"] = &types.AttributeValueMemberS{Value: "0123456789abcdef"}
			held["remodel_host"] = &types.AttributeValueMemberS{Value: c.host}
			held["remodel_pid"] = &types.AttributeValueMemberN{Value: strconv.Itoa(c.pid)}
			if c.pidStart != "" {
				held["remodel_pid_start"] = &types.AttributeValueMemberS{Value: c.pidStart}
			}
			held["remodel_started"] = &types.AttributeValueMemberS{Value: "2026-01-01T00:00:00Z"}
			held["remodel_heartbeat"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().UnixMilli(), 10)}
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: held}); err != nil {
				t.Fatal(err)
			}
			rep, err := migrate.Run(ctx, fx.options(db, table))
			if !c.takenOver {
				if err == nil || !strings.Contains(err.Error(), "is locked by another migrate run: owner 0123456789abcdef on host "+c.host) {
					t.Fatalf("Run: %v; want the refusal naming the live lock's run", err)
				}
				if rep.ItemsWritten != 0 {
					t.Errorf("a refused run wrote %d items", rep.ItemsWritten)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v; want the lock of a process gone from this host taken over", err)
			}
			want := fmt.Sprintf("took over the lock of a run that died on this host on table %s: owner 0123456789abcdef on host %s (pid %d)", table, c.host, c.pid)
			if len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0], want) {
				t.Errorf("warnings %q, want one starting %q", rep.Warnings, want)
			}
			checkLanded(t, fx, rep, db, table)
			checkNoLock(t, db, fx, table)
		})
	}
}
