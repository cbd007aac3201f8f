package mapping

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// TestParamsSQLTimestamp: a parameter that only the params SQL returns
// takes the kind of the column the source describes for it, so that iso
// and the other time formatters apply to it as to a table column; without
// the description it is text, which they refuse.
func TestParamsSQLTimestamp(t *testing.T) {
	const params = "SELECT id, ts + interval '1 second' AS since FROM things"
	src := `version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  thing:
    from: things
    pk: "THING#{id}"
    sk: "T#{ts|iso}"
access_patterns:
  since:
    query: {pk: "THING#{id}", sk: {between: ["T#{since|iso}", "T#{since|unixms}"]}}
    entity: thing
    params: "` + params + `"
    sql: SELECT * FROM things WHERE id = {id} AND ts >= {since}
`
	f, err := Parse("params.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		kind introspect.Kind // of since in the described result; "" undescribed
		want string          // the compile error, or "" and the key values
		sk   []string
	}{
		{name: "timestamp", kind: introspect.KindTimestamp,
			sk: []string{"T#2024-03-01T10:00:01.250000Z", "T#1709287201250"}},
		{name: "timestamp with time zone", kind: introspect.KindTimestampTZ,
			sk: []string{"T#2024-03-01T10:00:01.250000Z", "T#1709287201250"}},
		{name: "not described", want: "iso needs a date or timestamp column, since is text"},
		{name: "described as text", kind: introspect.KindString, want: "unixms needs a date or timestamp column, since is timestamp (string)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testSchema()
			if tc.kind != "" {
				s.AddQuery(params, []*introspect.Column{col("id", "bigint", introspect.KindInt), nullable(col("since", "timestamp", tc.kind))})
			}
			p, err := Compile(f, s)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Compile = %v, want an error with %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			ap := p.AccessPatterns[0]
			if len(ap.Params) != 2 || ap.Params[1].Name != "since" || ap.Params[1].Kind != tc.kind {
				t.Fatalf("params = %v, want since of kind %s second", ap.Params, tc.kind)
			}
			at := time.Date(2024, 3, 1, 11, 0, 1, 250e6, time.FixedZone("CET", 3600))
			kc, err := ap.KeyCondition([]any{int64(7), at})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range kc.SK {
				got = append(got, v.(*types.AttributeValueMemberS).Value)
			}
			if strings.Join(got, " ") != strings.Join(tc.sk, " ") {
				t.Errorf("sort key values = %v, want %v", got, tc.sk)
			}
		})
	}
}
