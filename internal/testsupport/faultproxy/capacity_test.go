package faultproxy

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/mapping"
)

// drive offers the model writes for model time d: every tick (1 ms of
// real time), n writes of u units each, on keys named by key(i, j). It
// returns the units admitted in each model second.
func drive(t *testing.T, m *model, start time.Time, d time.Duration, n int, u float64, key func(tick, j int) string) []float64 {
	t.Helper()
	tick := time.Millisecond
	var perSecond []float64
	for i := 0; time.Duration(float64(time.Duration(i)*tick)*m.c.Scale) < d; i++ {
		now := start.Add(time.Duration(i) * tick)
		keys := make([]string, n)
		units := make([]float64, n)
		for j := range keys {
			keys[j], units[j] = key(i, j), u
		}
		ok := m.admit(now, keys, units)
		sec := int(m.modelTime(now) / time.Second)
		for len(perSecond) <= sec {
			perSecond = append(perSecond, 0)
		}
		for _, a := range ok {
			if a {
				perSecond[sec] += u
			}
		}
	}
	return perSecond
}

func hot(int, int) string { return `{"S":"HOT"}` }

func spread(i, j int) string { return fmt.Sprintf(`{"S":"K%d-%d"}`, i, j) }

func TestCapacityModel(t *testing.T) {
	start := time.Unix(1700000000, 0)
	for _, c := range []struct {
		name string
		cap  Capacity
		n    int
		u    float64
		key  func(int, int) string
		d    time.Duration
		// want is the units admitted per model second after the first
		// (which has the key buckets' burst), within 2 %.
		want  float64
		first float64 // the first second's, within 2 %
	}{
		{"hot key capped at 1000 WU/s", Capacity{PartitionKey: "PK"}, 5, 1, hot, 5 * time.Second, 1000, 2000},
		{"hot key, 3 KB items", Capacity{PartitionKey: "PK"}, 5, 3, hot, 5 * time.Second, 1000, 2000},
		{"hot key under a higher table limit", Capacity{PartitionKey: "PK", TableLimit: 5000}, 10, 1, hot, 5 * time.Second, 1000, 2000},
		{"table limit, many keys", Capacity{PartitionKey: "PK", TableLimit: 3000}, 10, 1, spread, 5 * time.Second, 3000, 3000},
		{"table limit below the key limit", Capacity{PartitionKey: "PK", TableLimit: 500}, 10, 1, hot, 5 * time.Second, 500, 500},
		{"no limit but the keys'", Capacity{PartitionKey: "PK"}, 10, 1, spread, 3 * time.Second, 10000, 10000},
		{"time scaled: 1 model second is 100 ms", Capacity{PartitionKey: "PK", TableLimit: 3000, Scale: 10}, 50, 1, spread, 5 * time.Second, 3000, 3000},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := newModel(c.cap, start)
			if err != nil {
				t.Fatal(err)
			}
			per := drive(t, m, start, c.d, c.n, c.u, c.key)
			t.Logf("units admitted per model second: %v", per)
			if !near(per[0], c.first) {
				t.Errorf("first second: %v units admitted, want %v", per[0], c.first)
			}
			for s := 1; s < int(c.d/time.Second); s++ {
				if !near(per[s], c.want) {
					t.Errorf("second %d: %v units admitted, want %v", s, per[s], c.want)
				}
			}
			st := m.snapshot()
			if (st.Throttled == 0) != (c.want == 10000) || st.Admitted == 0 || st.AdmittedUnits != float64(st.Admitted)*c.u {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func near(got, want float64) bool { return got >= want*0.98 && got <= want*1.02 }

// TestCapacityOnDemand: an on-demand table starts at 4 000 WU/s and doubles
// its allowance after each period the writes use it in full, up to its
// limit; a table written below its allowance does not grow.
func TestCapacityOnDemand(t *testing.T) {
	start := time.Unix(1700000000, 0)
	m, err := newModel(Capacity{PartitionKey: "PK", OnDemand: true, DoubleAfter: 2 * time.Second, TableLimit: 40000, Scale: 10}, start)
	if err != nil {
		t.Fatal(err)
	}
	per := drive(t, m, start, 10*time.Second, 500, 1, spread)
	t.Logf("units admitted per model second: %v", per)
	for s, want := range []float64{4000, 4000, 8000, 8000, 16000, 16000, 32000, 32000, 40000, 40000} {
		if !near(per[s], want) {
			t.Errorf("second %d: %v units admitted, want %v", s, per[s], want)
		}
	}
	if a := m.snapshot().Allowance; a != 40000 {
		t.Errorf("allowance %v, want 40000", a)
	}

	m, _ = newModel(Capacity{PartitionKey: "PK", OnDemand: true, DoubleAfter: 2 * time.Second}, start)
	per = drive(t, m, start, 10*time.Second, 3, 1, spread) // 3 000 a second: below 4 000
	if a := m.snapshot().Allowance; a != 6000 {
		t.Errorf("after 10 s at 3 000 WU/s: allowance %v, want 6000 (double the peak)", a)
	}
	if st := m.snapshot(); st.Throttled > 3 || !near(per[5], 3000) { // the first tick's: the table's bucket starts empty
		t.Errorf("writes below the allowance: %d throttled, %v a second", st.Throttled, per[5])
	}
}

func TestCapacityShare(t *testing.T) {
	c := Capacity{PartitionKey: "PK", TableLimit: 2000}
	for _, x := range []struct {
		s    CapacityStats
		want float64
	}{
		{CapacityStats{AdmittedUnits: 20000, HotKeyUnits: 10, Elapsed: 10 * time.Second}, 1},
		{CapacityStats{AdmittedUnits: 20000, HotKeyUnits: 10, Elapsed: 20 * time.Second}, 0.5},
		// the hot key needs (11 000 - 1 000 burst)/1 000 = 10 s
		{CapacityStats{AdmittedUnits: 12000, HotKeyUnits: 11000, Elapsed: 10 * time.Second}, 1},
		{CapacityStats{AdmittedUnits: 12000, HotKeyUnits: 11000, Elapsed: 12500 * time.Millisecond}, 0.8},
	} {
		if got := c.Share(x.s); got < x.want-1e-9 || got > x.want+1e-9 {
			t.Errorf("Share(%+v) = %v, want %v", x.s, got, x.want)
		}
	}
}

func TestCapacityPrune(t *testing.T) {
	start := time.Unix(1700000000, 0)
	m, _ := newModel(Capacity{PartitionKey: "PK"}, start)
	for i := range 5000 {
		m.admit(start.Add(time.Duration(i)*time.Millisecond), []string{fmt.Sprint(i)}, []float64{1})
	}
	if len(m.keys) > 1000 {
		t.Errorf("%d key buckets kept; the full ones should be forgotten", len(m.keys))
	}
	if st := m.snapshot(); st.Admitted != 5000 {
		t.Errorf("%d admitted", st.Admitted)
	}
}

// TestItemSize: the proxy counts an item's size from its DynamoDB JSON as
// mapping.ItemSize does from the SDK's attribute values.
func TestItemSize(t *testing.T) {
	for _, c := range []struct {
		json string
		av   map[string]types.AttributeValue
		want int
	}{
		{`{"PK":{"S":"USER#1"}}`, map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#1"}}, 8},
		{`{"é":{"S":"ü"}}`, map[string]types.AttributeValue{"é": &types.AttributeValueMemberS{Value: "ü"}}, 4},
		{`{"n":{"N":"12345678901234567890.5"}}`, map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "12345678901234567890.5"}}, 1 + 12},
		{`{"n":{"N":"-0.000100"}}`, map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "-0.000100"}}, 1 + 2},
		{`{"b":{"B":"AAEC"},"t":{"BOOL":true},"z":{"NULL":true}}`, map[string]types.AttributeValue{
			"b": &types.AttributeValueMemberB{Value: []byte{0, 1, 2}}, "t": &types.AttributeValueMemberBOOL{Value: true}, "z": &types.AttributeValueMemberNULL{Value: true},
		}, 1 + 3 + 1 + 1 + 1 + 1},
		{`{"ss":{"SS":["ab","c"]},"ns":{"NS":["1","22"]},"bs":{"BS":["AA=="]}}`, map[string]types.AttributeValue{
			"ss": &types.AttributeValueMemberSS{Value: []string{"ab", "c"}},
			"ns": &types.AttributeValueMemberNS{Value: []string{"1", "22"}},
			"bs": &types.AttributeValueMemberBS{Value: [][]byte{{0}}},
		}, 2 + 3 + 2 + 4 + 2 + 1},
		{`{"l":{"L":[{"S":"ab"},{"M":{"k":{"N":"7"}}}]}}`, map[string]types.AttributeValue{
			"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberS{Value: "ab"},
				&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberN{Value: "7"}}},
			}},
		}, 1 + 3 + (1 + 2) + (1 + 3 + 1 + 1 + 2)},
	} {
		var item map[string]json.RawMessage
		if err := json.Unmarshal([]byte(c.json), &item); err != nil {
			t.Fatal(err)
		}
		got, fromSDK := ItemSize(item), mapping.ItemSize(c.av)
		if got != c.want || fromSDK != c.want {
			t.Errorf("%s: ItemSize %d, mapping.ItemSize %d, want %d", c.json, got, fromSDK, c.want)
		}
	}
	for size, units := range map[int]int{0: 1, 1: 1, 1024: 1, 1025: 2, 400 * 1024: 400} {
		if got := itemUnits(size); got != units {
			t.Errorf("itemUnits(%d) = %d, want %d", size, got, units)
		}
	}
}
