package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// ordersMapping maps table orders to one item per row.
const ordersMapping = `version: 1
table:
  name: orders
  key: {pk: PK, sk: SK}
entities:
  order:
    from: orders
    pk: "ORDER#{id}"
    sk: "ORDER"
`

// TestEmulatorRestartedMidRun (issue 15): a real remodel migrate into a
// DynamoDB Local of the test's own, in memory, which is restarted while
// the run writes (the table and every item the run had written are gone,
// as after a laptop's emulator restarted under a long migration):
//
//   - the run fails (exit status 3) and its report says the table is
//     gone, not that N items are written or that it migrated;
//   - migrate --resume --create-table with its checkpoint is refused
//     (exit status 3: the table does not exist any more, start over
//     without --resume), leaves the checkpoint as it was and creates no
//     table, where a trusting resume would report rows migrated that are
//     in no table;
//   - migrate --create-table without --resume then ends exact: one item
//     per row, verify passes.
//
// 20 000 rows; REMODEL_TRUST_ROWS=100000 runs it with more by hand.
func TestEmulatorRestartedMidRun(t *testing.T) {
	awsEnv(t)
	rows := 20000
	if s := os.Getenv("REMODEL_TRUST_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 2000 {
			t.Fatalf("REMODEL_TRUST_ROWS=%q: want a number of rows, at least 2000", s)
		}
		rows = n
	}
	dsn := testenv.Postgres(t)
	ddb := testenv.StartOwnDynamoDB(t)
	bin := buildRemodel(t)
	testenv.ExecPostgres(t, dsn, fmt.Sprintf(`CREATE TABLE orders (
  id bigint PRIMARY KEY,
  customer_id int NOT NULL,
  status text NOT NULL,
  total numeric(10,2) NOT NULL,
  placed_at timestamptz NOT NULL
);
INSERT INTO orders
SELECT g, 1 + g %% 997, (ARRAY['new','paid','shipped','delivered'])[1 + g %% 4],
       1 + (g %% 50000) / 100.0, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute'
FROM generate_series(1, %d) g;
ANALYZE orders;`, rows))
	m := writeFile(t, "orders.yaml", ordersMapping)
	db := testenv.DynamoDBClient(ddb.Endpoint)
	const table = "orders"
	dir := t.TempDir()
	ck := filepath.Join(dir, "c.json")
	reportJSON := filepath.Join(dir, "report.json")
	args := func(extra ...string) []string {
		return append([]string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", ddb.Endpoint, "--table", table,
			"--checkpoint", ck, "--rejects", filepath.Join(dir, "rejects.jsonl"), "--progress", "none"}, extra...)
	}

	// 1. A run slowed down (one writer, 500 items a second: 40 s for
	// 20 000 rows) so that it is mid-way when DynamoDB Local restarts.
	cmd := exec.Command(bin, args("--create-table", "--writers", "1", "--rate-limit", "500", "--checkpoint-every", "100ms", "--output-file", reportJSON)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// end kills the run if it still runs and waits for it: its output is
	// whole then. A test that failed half-way leaves no run behind.
	end := func() {
		select {
		case err := <-done:
			done <- err
		default:
			_ = cmd.Process.Kill()
			done <- <-done
		}
	}
	t.Cleanup(end)
	// Once the checkpoint exists (the table does then) and the table holds
	// some items; a deadline generous enough for a loaded machine.
	var before int64
	for deadline := time.Now().Add(3 * time.Minute); ; {
		if _, err := os.Stat(ck); err == nil {
			if before, err = itemCount(db, table); err == nil && before >= 300 {
				break
			}
		}
		if time.Now().After(deadline) {
			end()
			t.Fatalf("no checkpoint and 300 items after 3 minutes:\n%s\n%s", stdout.String(), stderr.String())
		}
		select {
		case err := <-done:
			done <- err
			t.Fatalf("the first run ended (%v) before DynamoDB Local was restarted:\n%s\n%s", err, stdout.String(), stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	ddb.Restart(t)
	if names := tableNames(t, db); len(names) != 0 {
		t.Fatalf("the restarted DynamoDB Local holds tables %v: it was not in memory", names)
	}
	t.Logf("DynamoDB Local restarted when the table held %d items", before)

	// 2. The run fails: the table is gone. Its writes are retried while
	// DynamoDB Local is down (--retry-for, 2m), then answered that the
	// table does not exist.
	var err error
	select {
	case err = <-done:
		done <- err
	case <-time.After(5 * time.Minute):
		end()
		t.Fatalf("the first run still runs 5 minutes after DynamoDB Local restarted:\n%s", stderr.String())
	}
	out := stdout.String()
	if code := exitCode(t, err); code != exitError {
		t.Errorf("the run whose table went exited %d, want %d:\n%s\n%s", code, exitError, out, stderr.String())
	}
	for _, want := range []string{
		"migration of postgres into DynamoDB table orders FAILED",
		"the table is gone: DynamoDB answered that table orders does not exist while the run wrote into it",
		"migrate again without --resume",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
	for _, wrong := range []string{"items are written", "migrated postgres", "continues from there"} {
		if strings.Contains(out, wrong) {
			t.Errorf("the report of a run whose table went says %q:\n%s", wrong, out)
		}
	}
	var rep struct {
		OK        bool  `json:"ok"`
		TableGone bool  `json:"table_gone"`
		Items     int64 `json:"items_written"`
	}
	if b, err := os.ReadFile(reportJSON); err != nil {
		t.Errorf("no JSON report: %v", err)
	} else if err := json.Unmarshal(b, &rep); err != nil || rep.OK || !rep.TableGone {
		t.Errorf("JSON report (%v): ok %v, table_gone %v, want false, true:\n%s", err, rep.OK, rep.TableGone, b)
	} else {
		t.Logf("the first run reported %d items written when its table went", rep.Items)
	}
	t.Logf("the first run:\n%s%s", out, stderr.String())
	saved, err := os.ReadFile(ck)
	if err != nil {
		t.Fatalf("the failed run left no checkpoint (it had settled rows): %v\n%s", err, out)
	}

	// 3. --resume (with --create-table) is refused: the table its
	// checkpoint settled items into does not exist any more.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	resumed, err := exec.CommandContext(ctx, bin, args("--resume", "--create-table")...).CombinedOutput()
	if code := exitCode(t, err); code != exitError {
		t.Errorf("--resume into the restarted DynamoDB Local exited %d, want %d:\n%s", code, exitError, resumed)
	}
	for _, want := range []string{"--resume: table orders does not exist any more", "start over without --resume"} {
		if !strings.Contains(string(resumed), want) {
			t.Errorf("--resume does not say %q:\n%s", want, resumed)
		}
	}
	t.Logf("--resume:\n%s", resumed)
	if strings.Contains(string(resumed), "migrated postgres") {
		t.Errorf("--resume into no table reported a migration:\n%s", resumed)
	}
	if names := tableNames(t, db); len(names) != 0 {
		t.Errorf("the refused --resume created tables %v", names)
	}
	if now, err := os.ReadFile(ck); err != nil || !bytes.Equal(now, saved) {
		t.Errorf("the refused --resume changed the checkpoint (%v):\nbefore %s\nafter  %s", err, saved, now)
	}

	// 4. Starting over without --resume ends exact.
	again, err := exec.CommandContext(ctx, bin, args("--create-table")...).CombinedOutput()
	if code := exitCode(t, err); code != 0 {
		t.Fatalf("migrating again without --resume exited %d:\n%s", code, again)
	}
	if !regexpMatch(fmt.Sprintf(`(?m)^  total +%d +%d +0( |$)`, rows, rows), string(again)) {
		t.Errorf("the new run does not count %d rows and items:\n%s", rows, again)
	}
	if n, err := itemCount(db, table); err != nil || n != int64(rows) {
		t.Errorf("the table holds %d items (%v), want %d", n, err, rows)
	}
	if _, err := os.Stat(ck); !os.IsNotExist(err) {
		t.Errorf("the finished job's checkpoint is still there: %v", err)
	}
	verified, err := exec.CommandContext(ctx, bin, "verify", "--source", dsn, "-m", m, "--endpoint-url", ddb.Endpoint, "--table", table, "--seed", "1", "--progress", "none").CombinedOutput()
	if code := exitCode(t, err); code != 0 {
		t.Errorf("verify exited %d:\n%s", code, verified)
	}
}

// itemCount counts the table's items (a consistent Scan).
func itemCount(db dynamo.API, table string) (int64, error) {
	var n int64
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount, ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			return 0, err
		}
		n += int64(out.Count)
	}
	return n, nil
}

func tableNames(t *testing.T, db dynamo.API) []string {
	t.Helper()
	out, err := db.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	return out.TableNames
}
