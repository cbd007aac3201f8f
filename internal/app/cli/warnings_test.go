package cli

import (
	"context"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

const warnSchema = `
CREATE TABLE users (id INT PRIMARY KEY, email VARCHAR(100) NOT NULL UNIQUE, region VARCHAR(10), team VARCHAR(10));
CREATE TABLE orders (id INT PRIMARY KEY, user_id INT NOT NULL, coupon VARCHAR(20));
CREATE TABLE audit (id INT PRIMARY KEY, note VARCHAR(50));
`

// risky is a valid mapping with one design risk of every kind validate
// warns about.
const risky = `version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
  indexes:
    - {name: GSI1, pk: SK, sk: PK}
    - {name: ByRegion, pk: region, sk: email}
    - {name: ByCoupon, pk: GSI3PK, sk: GSI3SK}
    - {name: Everything, pk: all, sk: PK}
entities:
  user:
    from: users
    pk: "USER#{email|lower}"
    sk: "PROFILE"
    attributes:
      set:
        all: "USERS"
        GSI3PK: "U#{id}"
  order:
    from: orders
    pk: "USER#{user_id}"
    sk: "ORDER#{id}"
    attributes:
      set:
        GSI3PK: "COUPON#{coupon}"
        GSI3SK: {value: "ORDER#{id}", when: "id > 10"}
access_patterns:
  ordersOfUser:
    query: {pk: "USER#{user_id}", sk: {begins_with: "ORDER#{id}"}}
    entity: order
    sql: SELECT * FROM orders WHERE user_id = {user_id} AND id = {id}
  ordersOfUserPadded:
    query: {pk: "USER#{user_id}", sk: {begins_with: "ORDER#{id|pad:8}"}}
    entity: order
    sql: SELECT * FROM orders WHERE user_id = {user_id} AND id = {id}
`

// TestValidateWarnings: a valid mapping's design risks are printed as
// warnings at their place, the exit status stays 0, and --strict makes it
// 1. Without a source only what the file says on its own is seen.
func TestValidateWarnings(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.yaml")
	if err := os.WriteFile(file, []byte(risky), 0o644); err != nil {
		t.Fatal(err)
	}
	const static = `remodel: m.yaml:14:9: warning: entities.user.sk: SK is the constant "PROFILE" on every item of user, and it is the partition key of GSI1: all those items are one partition of the index (a hot partition: at most 1 000 writes and 3 000 reads a second); add a column, or {col|shard:N}, to spread them [constant-partition-key]
remodel: m.yaml:17:14: warning: entities.user.attributes.set.all: all is the constant "USERS" on every item of user, and it is the partition key of Everything: all those items are one partition of the index (a hot partition: at most 1 000 writes and 3 000 reads a second); add a column, or {col|shard:N}, to spread them [constant-partition-key]
remodel: m.yaml:29:53: warning: access_patterns.ordersOfUser.query.sk.begins_with: the prefix "ORDER#{id}" ends in the placeholder {id} without a separator after it: it also matches the items whose id only starts with the value (news matches newsletter); end it with a separator such as # (and write the sort key with it) [begins-with-placeholder]
`
	code, stdout, stderr := remodelCtx(t, context.Background(), "validate", "-m", file)
	stderr = strings.ReplaceAll(stderr, file, "m.yaml")
	if code != 0 || stderr != static || !strings.Contains(stdout, "3 warnings") {
		t.Errorf("validate without a source: exit %d\nstdout: %s\nstderr:\n%s\nwant:\n%s", code, stdout, stderr, static)
	}
	if code, _, _ := remodelCtx(t, context.Background(), "validate", "-m", file, "--strict"); code != 1 {
		t.Errorf("validate --strict with warnings: exit %d, want 1", code)
	}
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, warnSchema)
			schema := "public"
			if eng.Name == "mysql" {
				u, err := url.Parse(dsn)
				if err != nil {
					t.Fatal(err)
				}
				schema = path.Base(u.Path)
			}
			want := `remodel: m.yaml:11:3: warning: entities.user: region, a key attribute of index ByRegion, comes from the nullable column region: the items of user whose row has NULL there are not in ByRegion, although they have its other key attributes (a sparse index, with one half of the index key left dangling) [sparse-nullable]
remodel: m.yaml:13:9: warning: entities.user.pk: the key templates (pk and sk) hold no column in full, which is not a unique key of table ` + schema + `.users (its keys: (id), (email)): two rows with the same values there make one item key, and migrate rejects the second as a key collision [key-not-unique]
` + strings.Join(strings.SplitAfter(static, "\n")[:2], "") + `remodel: m.yaml:18:17: warning: entities.user.attributes.set.GSI3PK: user writes GSI3PK, a key attribute of index ByCoupon, but never GSI3SK: its items are never in ByCoupon (one half of the index key left dangling) [dangling-index-key]
remodel: m.yaml:25:17: warning: entities.order.attributes.set.GSI3PK: GSI3PK, a key attribute of index ByCoupon, comes from the nullable column coupon: the items of order whose row has NULL there are not in ByCoupon (a sparse index) [sparse-nullable]
remodel: m.yaml:26:45: warning: entities.order.attributes.set.GSI3SK.when: GSI3SK, a key attribute of index ByCoupon, is written only where this condition holds: the other items of order are not in ByCoupon (a sparse index) [sparse-when]
` + strings.SplitAfter(static, "\n")[2] + `remodel: m.yaml:11:3: warning: entities: table ` + schema + `.audit is not read by any entity: its rows are not migrated [unmapped-table]
`
			code, stdout, stderr := remodelCtx(t, context.Background(), "validate", "-m", file, "--source", dsn)
			stderr = strings.ReplaceAll(stderr, file, "m.yaml")
			if code != 0 || stderr != want || !strings.Contains(stdout, "9 warnings") {
				t.Errorf("validate --source: exit %d\nstdout: %s\nstderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
			}
			if code, _, _ := remodelCtx(t, context.Background(), "validate", "-m", file, "--source", dsn, "--strict"); code != 1 {
				t.Errorf("validate --source --strict with warnings: exit %d, want 1", code)
			}
		})
	}
}

// TestValidateAcknowledged: warnings the mapping acknowledges are still
// printed, each with its reason, and --strict passes when every warning is
// acknowledged; one left open still fails it, and an acknowledgement that
// matches no warning is a warning of its own (so --strict fails).
func TestValidateAcknowledged(t *testing.T) {
	const acks = `acknowledge:
  - {warning: constant-partition-key, index: GSI1, reason: "a side effect of the inverted index"}
  - {warning: constant-partition-key, index: Everything, reason: "a scan of every user, on purpose"}
  - {warning: begins-with-placeholder, pattern: ordersOfUser, reason: "ids match by prefix on purpose"}
`
	tests := []struct {
		name, extra string
		code        int
		summary     string
		stderr      []string // substrings
	}{
		{name: "all acknowledged", extra: acks, code: 0, summary: "3 warnings, all acknowledged",
			stderr: []string{
				`m.yaml:14:9: warning: entities.user.sk: SK is the constant "PROFILE" on every item of user, and it is the partition key of GSI1: all those items are one partition of the index (a hot partition: at most 1 000 writes and 3 000 reads a second); add a column, or {col|shard:N}, to spread them [constant-partition-key] (acknowledged at line 37: a side effect of the inverted index)`,
				`[begins-with-placeholder] (acknowledged at line 39: ids match by prefix on purpose)`,
			}},
		{name: "one left open", extra: acks[:strings.LastIndex(acks[:len(acks)-1], "\n")+1], code: 1, summary: "3 warnings, 2 of them acknowledged",
			stderr: []string{"validate --strict: the mapping has 1 warning that no acknowledgement matches"}},
		{name: "stale", extra: acks + `  - {warning: sparse-when, entity: order, reason: "no longer true"}
`, code: 1, summary: "4 warnings, 3 of them acknowledged",
			stderr: []string{`m.yaml:40:5: warning: acknowledge: the acknowledgement of sparse-when, entity order matches no warning: remove it (the design no longer has that risk, or the names are wrong) [stale-acknowledgement]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "m.yaml")
			if err := os.WriteFile(file, []byte(risky+tt.extra), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := remodelCtx(t, context.Background(), "validate", "-m", file, "--strict")
			stderr = strings.ReplaceAll(stderr, file, "m.yaml")
			if code != tt.code || !strings.Contains(stdout, tt.summary) {
				t.Errorf("validate --strict: exit %d, want %d; stdout %q, want %q in it\nstderr:\n%s", code, tt.code, stdout, tt.summary, stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
}
