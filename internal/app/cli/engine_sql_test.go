package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// eventsSQL: five events of two users from 2024 and one from 2023, which the
// mapping's where leaves out.
func eventsSQL(engine string) string {
	ts := "TIMESTAMP(3)"
	if engine == "mysql" {
		ts = "DATETIME(3)"
	}
	return `CREATE TABLE events (event_id INT PRIMARY KEY, user_id INT NOT NULL, kind VARCHAR(20) NOT NULL, created_at ` + ts + ` NOT NULL);
INSERT INTO events VALUES (1, 1, 'login', '2024-01-05 10:00:00.000'), (2, 1, 'buy', '2024-01-06 11:30:00.250'),
  (3, 1, 'logout', '2024-02-01 00:00:00.999'), (4, 2, 'login', '2024-03-03 03:03:03.003'),
  (5, 2, 'buy', '2024-03-03 03:03:03.004'), (6, 2, 'old', '2023-12-31 23:59:59.999');`
}

// eventsMapping is one mapping for both engines: the entity's where and the
// pattern's params are written once per engine (PostgreSQL's interval
// '1 day' is a syntax error on MySQL and MariaDB, their INTERVAL 1 DAY one on
// PostgreSQL), and the pattern's parameter {since} is a timestamp that only
// the params SQL returns, formatted with iso in the key condition.
const eventsMapping = `version: 1
table: {name: events, key: {pk: PK, sk: SK}}
entities:
  event:
    from: events
    where: created_at >= TIMESTAMP '2024-01-02 00:00:00' - interval '1 day'
    mysql:
      where: created_at >= TIMESTAMP '2024-01-02 00:00:00' - INTERVAL 1 DAY
    pk: "USER#{user_id}"
    sk: "AT#{created_at|iso}#{event_id|pad:6}"
access_patterns:
  since:
    query: {pk: "USER#{user_id}", sk: {gte: "AT#{since|iso}"}}
    entity: event
    params: >-
      SELECT user_id, created_at + interval '1 millisecond' AS since FROM events
       WHERE created_at >= TIMESTAMP '2024-01-01 00:00:00' ORDER BY event_id
    sql: SELECT * FROM events WHERE user_id = {user_id} AND created_at >= {since} AND created_at >= TIMESTAMP '2024-01-01 00:00:00'
    mysql:
      params: >-
        SELECT user_id, created_at + INTERVAL 1000 MICROSECOND AS since FROM events
         WHERE created_at >= TIMESTAMP '2024-01-01 00:00:00' ORDER BY event_id
`

// TestEngineSQLAndTimestampParams validates, migrates and verifies
// eventsMapping on both engines: each engine runs its own where and
// params (the other's would be a syntax error), and the iso of the
// timestamp parameter matches the items' sort keys (verify samples every
// event's time plus a millisecond: the items after it).
func TestEngineSQLAndTimestampParams(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel() // each its own database and table
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, eventsSQL(eng.Name))
			_, table := testenv.DynamoDBTable(t)
			m := writeFile(t, "events.yaml", eventsMapping)
			base := []string{"--source", dsn, "-m", m}
			dyn := append(append([]string{}, base...), "--endpoint-url", endpoint, "--table", table)

			if code, out, errOut := remodel(t, append([]string{"validate", "--strict"}, base...)...); code != exitOK || !strings.Contains(out, "valid against") {
				t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut := remodel(t, append([]string{"migrate", "--create-table"}, dyn...)...)
			if code != exitOK || !strings.Contains(out, "total") {
				t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = remodel(t, append([]string{"verify", "--samples", "10"}, dyn...)...)
			if code != exitOK || !strings.HasPrefix(out, "verify PASS") {
				t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
			}
			// The 2023 event is left out by the where; each sample finds the
			// user's later events: 2 + 1 + 0 for user 1, 1 + 0 for user 2.
			for _, want := range []string{`source rows\s+5\s+items\s+5`, `since\s+on the table\s+5 samples,\s+4 items`} {
				if !regexp.MustCompile(want).MatchString(out) {
					t.Errorf("verify: no %s in\n%s", want, out)
				}
			}
			t.Logf("%s", out)
		})
	}
}
