package keyproof

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/schemas"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// compileString parses and compiles a mapping given as text.
func compileString(t *testing.T, src string, s *introspect.Schema) *mapping.Plan {
	t.Helper()
	f, err := mapping.Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	p, err := mapping.Compile(f, s)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}

// injectiveSchema is schemas.Mapping plus tables whose keys the proof has to
// tell apart: an enum key, a table without a primary key, a MySQL-style
// declared text key.
func injectiveSchema(engine introspect.Engine) *introspect.Schema {
	col, precision := schemas.Col, schemas.Precision
	s := schemas.Mapping()
	s.Engine = engine
	s.Tables = append(s.Tables,
		&introspect.Table{Schema: "public", Name: "settings", Columns: []*introspect.Column{
			col("user_id", "bigint", introspect.KindInt),
			{Name: "kind", Type: "setting_kind", Kind: introspect.KindString, Values: []string{"theme", "lang", "tz"}},
			{Name: "odd", Type: "odd_kind", Kind: introspect.KindString, Values: []string{"a#b", "c"}},
			col("at", "timestamp(0) with time zone", introspect.KindTimestampTZ),
			precision(col("at6", "timestamp(6) with time zone", introspect.KindTimestampTZ), 6),
			col("amount", "numeric(12,2)", introspect.KindDecimal),
		}, PrimaryKey: []string{"user_id", "kind"}},
		&introspect.Table{Schema: "public", Name: "logs", Columns: []*introspect.Column{
			col("id", "bigint", introspect.KindInt), col("msg", "text", introspect.KindString),
		}},
		&introspect.Table{Schema: "public", Name: "events", Columns: []*introspect.Column{
			col("tenant", "bigint", introspect.KindInt), col("id", "bigint", introspect.KindInt),
			precision(col("at", "timestamp(0) with time zone", introspect.KindTimestampTZ), 0),
			precision(col("at6", "timestamp(6) with time zone", introspect.KindTimestampTZ), 6),
		}, PrimaryKey: []string{"tenant", "id"}},
	)
	return s
}

// TestProve: mappings whose keys the rule proves injective
// (and entities apart), and mappings it cannot prove, each with the reason
// it gives.
func TestProve(t *testing.T) {
	for _, tc := range []struct {
		name     string
		engine   introspect.Engine
		key      string // the table's key
		entities string
		proven   bool
		reason   string // a part of the reasons
	}{
		{"integer keys, separators", introspect.Postgres, "{pk: PK, sk: SK}", `
  user: {from: users, pk: "USER#{user_id}", sk: "USER#"}
  sub: {from: subscribe_user, pk: "USER#{user_id}", sk: "SUB#{content_origin_id}#{service}#{content_type}"}
  ev: {from: events, pk: "EV#{tenant}#{id}", sk: "EV"}`, false, "{service} (character varying(32)) may contain \"#\""},
		{"text last, integers before", introspect.Postgres, "{pk: PK, sk: SK}", `
  user: {from: users, pk: "USER#{user_id}", sk: "USER#"}
  ev: {from: events, pk: "EV#{tenant}#{id}", sk: "EV"}
  svc: {from: services, pk: "SERVICE#{service}", sk: "SERVICE"}`, true, "entity ev: the primary key (tenant, id)"},
		{"the personalization example", introspect.Postgres, "{pk: PK, sk: SK}", `
  personal: {from: personal, pk: "USER#{user_id}", sk: "PERSONAL#{service}#{setting_type}"}`, false, "{service} (character varying(32)) may contain \"#\""},
		{"an enum before a separator", introspect.Postgres, "{pk: PK, sk: SK}", `
  s: {from: settings, pk: "U#{user_id}", sk: "S#{kind}#X"}`, true, "entity s: the primary key (user_id, kind)"},
		{"an enum with the separator in a value", introspect.Postgres, "{pk: PK, sk: SK}", `
  s: {from: settings, pk: "U#{user_id}", sk: "S#{kind}#{odd}#X"}`, false, "{odd} (odd_kind) may contain \"#\""},
		{"fixed width lets placeholders touch", introspect.Postgres, "{pk: PK, sk: SK}", `
  ev: {from: events, pk: "T{tenant|pad:12}{id|pad:12}", sk: "E"}`, true, "entity ev"},
		{"variable width before a placeholder", introspect.Postgres, "{pk: PK, sk: SK}", `
  ev: {from: events, pk: "T{tenant}{id}", sk: "E"}`, false, "{tenant} is followed by another placeholder"},
		{"a key column left out", introspect.Postgres, "{pk: PK, sk: SK}", `
  ev: {from: events, pk: "EVENT#{id}", sk: "EVENT#"}`, false, "the key column tenant is not in the key"},
		{"shard is not injective", introspect.Postgres, "{pk: PK, sk: SK}", `
  ev: {from: events, pk: "EV#{tenant}#{id|shard:4}", sk: "E"}`, false, "{id|shard:4}: many values share a bucket"},
		{"lower is not injective", introspect.Postgres, "{pk: PK, sk: SK}", `
  svc: {from: services, pk: "S#{service|lower}", sk: "S"}`, false, "{service|lower}"},
		{"unix drops microseconds", introspect.Postgres, "{pk: PK, sk: SK}", `
  ev: {from: events, pk: "EV#{tenant}#{id}", sk: "AT#{at6|unix}"}`, true, "entity ev"},
		{"unix of a timestamp(6) as the only key", introspect.Postgres, "{pk: PK, sk: SK}", `
  s: {from: settings, pk: "U#{user_id}", sk: "K#{kind}#{at6|unix}"}`, true, "entity s"},
		{"timestamps keep apart at their precision", introspect.Postgres, "{pk: PK, sk: SK}", `
  s: {from: settings, pk: "U#{user_id}#{kind}", sk: "{at6|iso}#{amount|desc:10}"}`, true, "entity s"},
		{"no primary key", introspect.Postgres, "{pk: PK, sk: SK}", `
  log: {from: logs, pk: "LOG#{id}", sk: "L"}`, false, "has no primary key"},
		{"declared text key on MySQL", introspect.MySQL, "{pk: PK, sk: SK}", `
  au: {from: active_users, key: [email], pk: "AU#{email}", sk: "AU"}`, false, "may hold equal values apart"},
		{"declared text key on PostgreSQL", introspect.Postgres, "{pk: PK, sk: SK}", `
  au: {from: active_users, key: [email], pk: "AU#{email}", sk: "AU"}`, true, "the declared key (email)"},
		{"declared integer key on MySQL", introspect.MySQL, "{pk: PK, sk: SK}", `
  au: {from: active_users, key: [user_id], pk: "AU#{user_id}", sk: "AU"}`, true, "the declared key (user_id)"},
		{"entities not told apart", introspect.Postgres, "{pk: PK, sk: SK}", `
  a: {from: users, pk: "X#{user_id}", sk: "X"}
  b: {from: events, pk: "X#{id}", sk: "X"}`, false, "entities a and b"},
		{"entities each proven, not told apart", introspect.Postgres, "{pk: PK, sk: SK}", `
  a: {from: users, pk: "X#{user_id}", sk: "X"}
  b: {from: services, pk: "X#{service}", sk: "X"}`, false, "entities a and b: their keys (X#{user_id} / X) and (X#{service} / X) are not told apart"},
		{"apart by a constant shorter than the other", introspect.Postgres, "{pk: PK, sk: SK}", `
  a: {from: users, pk: "U#{user_id}", sk: "S"}
  b: {from: settings, pk: "U#{user_id}", sk: "S#{kind}"}`, true, "differ in a constant prefix"},
		{"apart by the suffix", introspect.Postgres, "{pk: PK, sk: SK}", `
  a: {from: users, pk: "{user_id}#U", sk: "S"}
  b: {from: events, pk: "{tenant}#{id}#E", sk: "S"}`, true, "differ in a constant prefix or suffix"},
		{"a number key", introspect.Postgres, "{pk: PK, sk: {name: SK, type: N}}", `
  ev: {from: events, pk: "EV#{tenant}", sk: "{id}"}`, true, "entity ev"},
		{"a number key from a template", introspect.Postgres, "{pk: PK, sk: {name: SK, type: N}}", `
  ev: {from: events, pk: "EV#{tenant}", sk: "{id|pad:10}"}`, false, "SK is a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compileString(t, "version: 1\ntable: {name: tbl1, key: "+tc.key+"}\nentities:"+tc.entities+"\n", injectiveSchema(tc.engine))
			proof := Prove(p)
			text := proof.String()
			if proof.Proven != tc.proven || !strings.Contains(text, tc.reason) {
				t.Errorf("proven %v, want %v, with %q in\n%s", proof.Proven, tc.proven, tc.reason, text)
			}
		})
	}
}

// TestProvenKeysDoNotCollide renders random rows of every proven case's
// entities (values from small sets, so that parts repeat, text with the
// separators in it) and finds no two rows with distinct source keys
// rendering one table key: the proof's claim, checked by example. For the
// unproven personalization key it shows two such rows.
func TestProvenKeysDoNotCollide(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	value := func(c *introspect.Column) any {
		switch {
		case c.Values != nil:
			return c.Values[rng.IntN(len(c.Values))]
		case c.Kind == introspect.KindInt:
			return int64(rng.IntN(30))
		case c.Kind == introspect.KindDecimal:
			return []string{"1", "1.5", "10", "0.25", "15"}[rng.IntN(5)]
		case c.Kind == introspect.KindString:
			return []string{"a", "a#", "#a", "a#b", "b", "", "ab"}[rng.IntN(7)]
		case c.Kind == introspect.KindTimestampTZ || c.Kind == introspect.KindTimestamp:
			us := int64(rng.IntN(5)) * 1_000_000
			if c.Precision > 0 {
				us += int64(rng.IntN(3))
			}
			return time.UnixMicro(1_700_000_000_000_000 + us).UTC()
		}
		return nil
	}
	cases := map[string]string{
		"separators": `
  user: {from: users, pk: "USER#{user_id}", sk: "USER#"}
  ev: {from: events, pk: "EV#{tenant}#{id}", sk: "EV"}
  svc: {from: services, pk: "SERVICE#{service}", sk: "SERVICE"}`,
		"enum and fixed widths": `
  s: {from: settings, pk: "U#{user_id}", sk: "S#{kind}#X"}
  ev: {from: events, pk: "T{tenant|pad:12}{id|pad:12}", sk: "E"}`,
		"timestamps": `
  s: {from: settings, pk: "U#{user_id}#{kind}", sk: "{at6|iso}#{amount|desc:10}"}
  ev: {from: events, pk: "{tenant}#{id}#E", sk: "S"}`,
	}
	for name, entities := range cases {
		p := compileString(t, "version: 1\ntable: {name: tbl1, key: {pk: PK, sk: SK}}\nentities:"+entities+"\n", injectiveSchema(introspect.Postgres))
		if !Prove(p).Proven {
			t.Fatalf("%s: not proven", name)
		}
		seen := map[string]string{} // table key → entity and source key
		for _, e := range p.Entities {
			for range 3000 {
				row := make([]any, len(e.Columns))
				for i, c := range e.Columns {
					row[i] = value(c)
				}
				item, err := e.RenderKey(row)
				if err != nil {
					continue // a NULL or an empty key: rejected, not written
				}
				k, src := p.Table.KeyString(item), e.Name+" "+e.SourceKey(row)
				if prev, ok := seen[k]; ok && prev != src {
					t.Errorf("%s: %s and %s both render %s", name, prev, src, k)
				}
				seen[k] = src
			}
		}
	}

	p := compileString(t, "version: 1\ntable: {name: tbl1, key: {pk: PK, sk: SK}}\nentities:\n  personal: {from: personal, pk: \"USER#{user_id}\", sk: \"PERSONAL#{service}#{setting_type}\"}\n", injectiveSchema(introspect.Postgres))
	e := p.Entity("personal")
	a, _ := e.RenderKey([]any{int64(1), "a#b", "c", nil, nil})
	b, _ := e.RenderKey([]any{int64(1), "a", "b#c", nil, nil})
	if Prove(p).Proven || p.Table.KeyString(a) != p.Table.KeyString(b) {
		t.Errorf("personalization: proven %v; %s and %s", Prove(p).Proven, p.Table.KeyString(a), p.Table.KeyString(b))
	}
}

// TestProofChecks: where the rule fails only because a text column may
// hold the separator after it, the proof names that condition (and only
// then: with another failure, or after a formatter, there is none), and
// CheckData proves the keys when the data holds no such separator.
func TestProofChecks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		entities string
		checks   string // the conditions, "entity.column sep" joined by spaces
	}{
		{"the personalization key", `
  personal: {from: personal, pk: "USER#{user_id}", sk: "PERSONAL#{service}#{setting_type}"}`, "personal.service#"},
		{"two entities, two columns", `
  personal: {from: personal, pk: "USER#{user_id}", sk: "PERSONAL#{service}#{setting_type}"}
  sub: {from: subscribe_user, pk: "USER#{user_id}", sk: "SUB#{content_origin_id}#{service}|{content_type}"}`, "personal.service# sub.service|"},
		{"another failure too", `
  personal: {from: personal, pk: "USER#{user_id}", sk: "PERSONAL#{service}#{setting_type}"}
  log: {from: logs, pk: "LOG#{id}", sk: "L"}`, ""},
		{"after a formatter", `
  svc: {from: services, pk: "S#{service|lower}#X", sk: "S"}`, ""},
		{"a space is not checked", `
  personal: {from: personal, pk: "USER#{user_id}", sk: "PERSONAL {service} {setting_type}"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compileString(t, "version: 1\ntable: {name: tbl1, key: {pk: PK, sk: SK}}\nentities:"+tc.entities+"\n", injectiveSchema(introspect.Postgres))
			proof := Prove(p)
			var got []string
			for _, d := range proof.Checks {
				got = append(got, d.Entity.Name+"."+d.Column+string(d.Sep))
			}
			if proof.Proven || strings.Join(got, " ") != tc.checks {
				t.Fatalf("proven %v, checks %q, want %q:\n%s", proof.Proven, got, tc.checks, proof)
			}
			if tc.checks == "" {
				return
			}
			none, err := proof.CheckData("of this test", func(DataCheck) (bool, error) { return false, nil })
			if err != nil || !none.Proven || !none.OnData || !strings.HasPrefix(none.Reasons[0], "proven on the data of this test: entity personal: service holds no \"#\"") {
				t.Errorf("no separator in the data: %v\n%s", err, none)
			}
			some, err := proof.CheckData("of this test", func(d DataCheck) (bool, error) { return d.Sep == '#', nil })
			if err != nil || some.Proven || some.OnData || !strings.Contains(some.String(), "entity personal: service holds \"#\" in a value") {
				t.Errorf("a separator in the data: %v\n%s", err, some)
			}
		})
	}
}
