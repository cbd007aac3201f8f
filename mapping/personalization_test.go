package mapping

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func personalizationPlan(t testing.TB) *Plan {
	t.Helper()
	f, err := ParseFile("../examples/personalization/mapping.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(f, personalizationSchema())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func utc(s string) time.Time {
	t, err := time.Parse(time.DateTime, s)
	if err != nil {
		panic(err)
	}
	return t
}

// personalizationRows are rows of examples/personalization/data.sql as the
// source decodes them (canonical values, in column order).
var personalizationRows = []struct {
	entity string
	row    []any
}{
	{"user", []any{int64(1), "siobhan.obrien.1@example.org", "Siobhán O'Brien", true, utc("2023-01-01 00:00:00")}},
	{"user", []any{int64(5), "olivia.lefevre.5@example.org", "Olivia Lefèvre", false, utc("2024-02-24 22:33:27")}},
	{"service", []any{"news", "Today's News", utc("2023-01-01 00:00:00")}},
	{"service", []any{"weather", "날씨 Weather", utc("2023-01-31 06:00:00")}},
	{"personal", []any{int64(1), "news", "alerts",
		[]byte(`{"enabled":true,"channels":["sms"],"quiet_hours":{"start":"22:00","end":"07:30","utc_offset_minutes":-300},"keywords":["O'Brien's picks"],"threshold":0.25,"max_per_day":7,"last_alert_id":12345678901234567}`),
		utc("2025-06-27 17:01:14")}},
	{"personal", []any{int64(1), "news", "alerts_email",
		[]byte(`{"enabled":true,"address":"siobhan.obrien.1@example.org","digest":"weekly","send_hour":9,"signature":"— Siobhán O'Brien","last_message_id":2907591946251316331,"filters":{"min_score":3.75,"languages":["ko"]}}`),
		utc("2024-12-02 21:37:53")}},
	{"personal", []any{int64(1), "news", "theme",
		[]byte(`{"mode":"light","accent":"#ff6347","font_scale":1.25,"high_contrast":true,"wallpaper":null}`),
		utc("2024-09-22 21:53:14")}},
	{"subscribe", []any{"news", "article", int64(2), "Zoë's garden — part 3", utc("2025-04-15 04:00:24")}},
	{"subscribe_user", []any{int64(1), "news", "photo", int64(8170), utc("2024-12-21 21:14:57")}},
}

// TestPersonalizationItems renders rows of the example and compares every
// item whole with testdata/personalization/items.json.
func TestPersonalizationItems(t *testing.T) {
	p := personalizationPlan(t)
	var b strings.Builder
	b.WriteString("[\n")
	items := map[string]Item{}
	for i, r := range personalizationRows {
		e := p.Entity(r.entity)
		item, err := e.Render(r.row)
		if err != nil {
			t.Fatalf("%s row %d: %v", r.entity, i, err)
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "%s", strings.TrimSuffix(wireJSON(t, item), "\n"))
		items[fmt.Sprintf("%s/%d", r.entity, i)] = item

		key, err := e.RenderKey(r.row)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(key, p.Table.KeyOf(item)) {
			t.Errorf("RenderKey %v differs from the item's key %v", key, p.Table.KeyOf(item))
		}
	}
	b.WriteString("\n]\n")
	golden.Check(t, "personalization/items.json", []byte(b.String()))

	// The points that matter most, asserted outside the golden file too.
	user := items["user/0"]
	for attr, want := range map[string]string{
		"PK": `{"S":"USER#1"}`, "SK": `{"S":"USER#"}`, "_type": `{"S":"user"}`,
		"user_id": `{"N":"1"}`, "createdAt": `{"S":"2023-01-01T00:00:00Z"}`, "isActive": `{"BOOL":true}`,
		"name": `{"S":"Siobhán O'Brien"}`,
	} {
		if got := compactJSON(t, user[attr]); got != want {
			t.Errorf("user %s = %s, want %s", attr, got, want)
		}
	}
	if _, ok := user["created_at"]; ok {
		t.Errorf("renamed column created_at is still in the item")
	}
	if got := compactJSON(t, items["user/1"]["isActive"]); got != `{"BOOL":false}` {
		t.Errorf("isActive of user 5 = %s", got)
	}
	alerts := items["personal/4"]
	if got := av.KeyText(alerts["SK"]); got != "PERSONAL#news#alerts" {
		t.Errorf("personal SK %q", got)
	}
	settings, ok := alerts["settings"].(*types.AttributeValueMemberM)
	if !ok {
		t.Fatalf("settings is %T, want M", alerts["settings"])
	}
	for attr, want := range map[string]string{
		"last_alert_id": `{"N":"12345678901234567"}`,
		"threshold":     `{"N":"0.25"}`,
		"enabled":       `{"BOOL":true}`,
		"channels":      `{"L":[{"S":"sms"}]}`,
		"quiet_hours":   `{"M":{"end":{"S":"07:30"},"start":{"S":"22:00"},"utc_offset_minutes":{"N":"-300"}}}`,
	} {
		if got := compactJSON(t, settings.Value[attr]); got != want {
			t.Errorf("settings.%s = %s, want %s", attr, got, want)
		}
	}
	email := items["personal/5"]["settings"].(*types.AttributeValueMemberM).Value
	if got := compactJSON(t, email["last_message_id"]); got != `{"N":"2907591946251316331"}` {
		t.Errorf("last_message_id = %s", got)
	}
	if got := compactJSON(t, items["personal/6"]["settings"].(*types.AttributeValueMemberM).Value["wallpaper"]); got != `{"NULL":true}` {
		t.Errorf("wallpaper = %s", got)
	}
	su := items["subscribe_user/8"]
	if got := compactJSON(t, su["data"]); got != `{"S":"SUBSCRIBE_USER"}` {
		t.Errorf("subscribe_user data = %s", got)
	}
	if got, want := p.Table.KeyString(su), "PK=USER#1 SK=SUBSCRIBE#news#photo#8170"; got != want {
		t.Errorf("KeyString %q, want %q", got, want)
	}
	if got := compactJSON(t, su["contentOriginId"]); got != `{"N":"8170"}` {
		t.Errorf("contentOriginId = %s", got)
	}
	if got := compactJSON(t, items["subscribe/7"]["title"]); got != `{"S":"Zoë's garden — part 3"}` {
		t.Errorf("title = %s", got)
	}
}

// TestPersonalizationAccessPatterns checks each pattern's target, params,
// key condition and SQL in both placeholder styles.
func TestPersonalizationAccessPatterns(t *testing.T) {
	p := personalizationPlan(t)
	values := map[string]any{"user_id": int64(42), "service": "news", "setting_type": "theme", "content_type": "article"}
	dollar := func(i int) string { return "$" + strconv.Itoa(i) }
	question := func(int) string { return "?" }
	tests := []struct {
		name, target, op string
		params           []string
		entity           string
		pk               string
		sk               []string
		pgSQL            string
		mySQL            string
	}{
		{"findUserByUserId", "the table", "", []string{"user_id"}, "user", "USER#42", []string{"USER#"},
			"SELECT * FROM users WHERE user_id = $1", "SELECT * FROM users WHERE user_id = ?"},
		{"findServiceByService", "the table", "", []string{"service"}, "service", "SERVICE#news", nil,
			"SELECT * FROM services WHERE service = $1", "SELECT * FROM services WHERE service = ?"},
		{"findPersonalByUserIdAndService", "the table", "begins_with", []string{"user_id", "service"}, "personal", "USER#42", []string{"PERSONAL#news#"},
			"SELECT * FROM personal WHERE user_id = $1 AND service = $2", "SELECT * FROM personal WHERE user_id = ? AND service = ?"},
		{"findPersonalByUserIdAndServiceAndSettingType", "the table", "", []string{"user_id", "service", "setting_type"}, "personal", "USER#42", []string{"PERSONAL#news#theme"},
			"SELECT * FROM personal WHERE user_id = $1 AND service = $2 AND setting_type = $3",
			"SELECT * FROM personal WHERE user_id = ? AND service = ? AND setting_type = ?"},
		{"findSubscribeByServiceAndContentType", "index GSI1", "begins_with", []string{"service", "content_type"}, "subscribe", "SUBSCRIBE#", []string{"SUBSCRIBE#news#article#"},
			"SELECT * FROM subscribe WHERE service = $1 AND content_type = $2", "SELECT * FROM subscribe WHERE service = ? AND content_type = ?"},
		{"findUserBySubscribeService", "index GSI2", "begins_with", []string{"service"}, "subscribe_user", "SUBSCRIBE_USER", []string{"SUBSCRIBE#news#"},
			"SELECT * FROM subscribe_user WHERE service = $1", "SELECT * FROM subscribe_user WHERE service = ?"},
	}
	if len(p.AccessPatterns) != len(tests) {
		t.Fatalf("%d access patterns, want %d", len(p.AccessPatterns), len(tests))
	}
	for i, tt := range tests {
		ap := p.AccessPatterns[i]
		if ap.Name != tt.name {
			t.Fatalf("pattern %d is %s, want %s", i, ap.Name, tt.name)
		}
		t.Run(tt.name, func(t *testing.T) {
			if ap.Target() != tt.target || ap.SKOp != tt.op {
				t.Errorf("target %q op %q", ap.Target(), ap.SKOp)
			}
			var names []string
			var vals []any
			for _, c := range ap.Params {
				names = append(names, c.Name)
				vals = append(vals, values[c.Name])
			}
			if !reflect.DeepEqual(names, tt.params) {
				t.Errorf("params %v, want %v", names, tt.params)
			}
			if len(ap.Queries) != 1 || ap.Queries[0].Entity.Name != tt.entity || ap.SampleFrom != ap.Queries[0].Entity || ap.ParamsSQL != nil {
				t.Fatalf("queries %+v", ap.Queries)
			}
			kc, err := ap.KeyCondition(vals)
			if err != nil {
				t.Fatal(err)
			}
			if len(kc.PK) != 1 || av.KeyText(kc.PK[0]) != tt.pk {
				t.Errorf("pk %v, want %q", kc.PK, tt.pk)
			}
			var sks []string
			for _, v := range append(kc.SKEq, kc.SK...) {
				sks = append(sks, av.KeyText(v))
			}
			if wantEq := tt.op == "" && tt.sk != nil; (ap.SKEq == 1) != wantEq || len(kc.SKEq) != ap.SKEq {
				t.Errorf("%d equalities on the sort key (%d values)", ap.SKEq, len(kc.SKEq))
			}
			if !reflect.DeepEqual(sks, tt.sk) {
				t.Errorf("sk %q, want %q", sks, tt.sk)
			}
			sql := ap.Queries[0].SQL
			text, binds := sql.Text(dollar)
			if text != tt.pgSQL {
				t.Errorf("postgres SQL %q, want %q", text, tt.pgSQL)
			}
			if !reflect.DeepEqual(binds, sql.Params()) {
				t.Errorf("binding order %v, want %v", binds, sql.Params())
			}
			if text, _ := sql.Text(question); text != tt.mySQL {
				t.Errorf("mysql SQL %q, want %q", text, tt.mySQL)
			}
		})
	}
}

func TestRowFor(t *testing.T) {
	p := personalizationPlan(t)
	e := p.Entity("personal")
	row, err := e.RowFor([]string{"updated_at", "setting_type", "user_id", "service"}, []any{"t", "theme", int64(1), "news"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{int64(1), "news", "theme", nil, "t"}; !reflect.DeepEqual(row, want) {
		t.Errorf("row %v, want %v", row, want)
	}
	_, err = e.RowFor([]string{"user_id", "service"}, []any{int64(1), "news"})
	if err == nil || err.Error() != "the SQL returns no column setting_type, which entity personal's key needs" {
		t.Errorf("missing key column: %v", err)
	}
}
