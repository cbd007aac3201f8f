package warn

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// TestWarnings: each risk is found at its place, and its look-alikes that
// are safe are not: a fixed-width last placeholder in a begins_with prefix,
// a constant on a local index's sort key, key templates that hold a
// unique key (not the primary key), a nullable column with default:, a
// view's nullable columns, a table read by a query.
func TestWarnings(t *testing.T) {
	src := `version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
  indexes:
    - {name: ByData, pk: data, sk: SK}
    - {name: ByTag, local: true, sk: tag}
    - {name: Inv, pk: SK, sk: PK}
    - {name: ByRole, pk: role}
entities:
  user:
    from: users
    pk: "USER#{email}"
    sk: "USER"
    attributes:
      set: {data: "D#{nick|default:none}", tag: "T"}
  member:
    from: members
    pk: "M#{org|upper}"
    sk: "M#{day|date}#{user_id|shard:4}"
    attributes:
      set: {data: "ALL"}
  active:
    from: active_users
    key: [id]
    pk: "A#{id}"
    sk: "A"
    attributes:
      set: {data: "N#{nick}"}
  weekly:
    query: SELECT org, count(*) AS n FROM Orders GROUP BY org
    key: [org]
    pk: "W#{org}"
    sk: "W"
access_patterns:
  padded:
    query: {pk: "USER#{email}", sk: {begins_with: "USER#{id|pad:6}"}}
    entity: user
    sql: SELECT * FROM users WHERE email = {email} AND id = {id}
  bare:
    query: {pk: "M#{org}", sk: {begins_with: "M#{day}"}}
    entity: member
    sql: SELECT * FROM members WHERE org = {org} AND day = {day}
`
	col := func(name string, kind introspect.Kind, nullable bool) *introspect.Column {
		return &introspect.Column{Name: name, Type: string(kind), Kind: kind, Nullable: nullable}
	}
	s := &introspect.Schema{Engine: introspect.Postgres, Database: "shop", Tables: []*introspect.Table{
		{Schema: "public", Name: "users", PrimaryKey: []string{"id"},
			UniqueKeys: []introspect.UniqueKey{{Name: "users_email_key", Columns: []string{"email"}}},
			Columns:    []*introspect.Column{col("id", introspect.KindInt, false), col("email", introspect.KindString, false), col("nick", introspect.KindString, true)}},
		{Schema: "public", Name: "members", PrimaryKey: []string{"org", "user_id"},
			Columns: []*introspect.Column{col("org", introspect.KindString, false), col("user_id", introspect.KindInt, false), col("day", introspect.KindDate, false),
				{Name: "role", Type: "member_role", Kind: introspect.KindString, Values: []string{"owner", "admin", "member"}}}},
		{Schema: "public", Name: "active_users", View: true,
			Columns: []*introspect.Column{col("id", introspect.KindInt, true), col("nick", introspect.KindString, true)}},
		{Schema: "public", Name: "orders", PrimaryKey: []string{"id"}, Columns: []*introspect.Column{col("id", introspect.KindInt, false), col("org", introspect.KindString, false)}},
		{Schema: "public", Name: "audit", PrimaryKey: []string{"id"}, Columns: []*introspect.Column{col("id", introspect.KindInt, false)}},
	}}
	s.AddQuery("SELECT org, count(*) AS n FROM Orders GROUP BY org", []*introspect.Column{col("org", introspect.KindString, true), col("n", introspect.KindInt, true)})
	f, err := mapping.Parse("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mapping.Compile(f, s); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range Warnings(f, s) {
		got = append(got, w.String())
	}
	want := []string{
		`m.yaml:14:9: warning: entities.user.sk: SK is the constant "USER" on every item of user, and it is the partition key of Inv: all those items are one partition of the index (a hot partition: at most 1 000 writes and 3 000 reads a second); add a column, or {col|shard:N}, to spread them [constant-partition-key]`,
		`m.yaml:17:3: warning: entities.member: the partition key of ByRole comes from role alone (booleans and enums): the items of member fall into at most 3 partitions of the index (hot partitions); add a column, or {col|shard:N}, to spread them [few-partitions]`,
		`m.yaml:19:9: warning: entities.member.pk: the key templates (pk and sk) hold only day in full, which is not a unique key of table public.members (its keys: (org, user_id)): two rows with the same values there make one item key, and migrate rejects the second as a key collision [key-not-unique]`,
		`m.yaml:22:19: warning: entities.member.attributes.set.data: data is the constant "ALL" on every item of member, and it is the partition key of ByData: all those items are one partition of the index (a hot partition: at most 1 000 writes and 3 000 reads a second); add a column, or {col|shard:N}, to spread them [constant-partition-key]`,
		`m.yaml:27:9: warning: entities.active.sk: SK is the constant "A" on every item of active, and it is the partition key of Inv: all those items are one partition of the index (a hot partition: at most 1 000 writes and 3 000 reads a second); add a column, or {col|shard:N}, to spread them [constant-partition-key]`,
		`m.yaml:34:9: warning: entities.weekly.sk: SK is the constant "W" on every item of weekly, and it is the partition key of Inv: all those items are one partition of the index (a hot partition: at most 1 000 writes and 3 000 reads a second); add a column, or {col|shard:N}, to spread them [constant-partition-key]`,
		`m.yaml:41:46: warning: access_patterns.bare.query.sk.begins_with: the prefix "M#{day}" ends in the placeholder {day} without a separator after it: it also matches the items whose day only starts with the value (news matches newsletter); end it with a separator such as # (and write the sort key with it) [begins-with-placeholder]`,
		`m.yaml:11:3: warning: entities: table public.audit is not read by any entity: its rows are not migrated [unmapped-table]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Without the schema: only what the file says on its own.
	got = nil
	for _, w := range Warnings(f, nil) {
		got = append(got, w.String())
	}
	if strings.Join(got, "\n") != strings.Join([]string{want[0], want[3], want[4], want[5], want[6]}, "\n") {
		t.Errorf("without a schema, got:\n%s", strings.Join(got, "\n"))
	}
}
