package av

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestKeyText(t *testing.T) {
	for _, tt := range []struct {
		v    types.AttributeValue
		want string
	}{
		{&types.AttributeValueMemberS{Value: "a"}, "a"},
		{&types.AttributeValueMemberN{Value: "1"}, "1"},
		{&types.AttributeValueMemberB{Value: []byte{0xca, 0xfe}}, "cafe"},
		{nil, "<missing>"},
		{&types.AttributeValueMemberBOOL{Value: true}, "*types.AttributeValueMemberBOOL"},
	} {
		if got := KeyText(tt.v); got != tt.want {
			t.Errorf("KeyText(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// item has every type, nested maps whose names are out of order, and
// text that JSON must escape.
var item = map[string]types.AttributeValue{
	"z": &types.AttributeValueMemberS{Value: "q\"<&>\n\x7f\u2028é"},
	"a": &types.AttributeValueMemberN{Value: "-1.50"},
	"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
		"y": &types.AttributeValueMemberBOOL{Value: true},
		"b": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberNULL{Value: true},
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberB{Value: []byte{1, 2}}, "c": &types.AttributeValueMemberSS{Value: []string{"x", "y"}}}},
		}},
	}},
	"n": &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
	"b": &types.AttributeValueMemberBS{Value: [][]byte{{0xff}}},
}

func TestSorted(t *testing.T) {
	want := `{"a":{"N":"-1.50"},"b":{"BS":["/w=="]},"m":{"M":{"b":{"L":[{"NULL":true},{"M":{"c":{"SS":["x","y"]},"k":{"B":"AQI="}}}]},"y":{"BOOL":true}}},"n":{"NS":["1","2"]},"z":{"S":"q\"<&>\n\u007f\u2028é"}}`
	for range 5 { // map order varies from run to run; the output must not
		if got := string(MarshalItem(item)); got != want {
			t.Fatalf("MarshalItem:\n%s\nwant\n%s", got, want)
		}
	}
	line, ok := AppendImportLine(nil, item)
	if !ok || string(line) != `{"Item":`+want+"}\n" {
		t.Errorf("AppendImportLine: %q, %v", line, ok)
	}
	// The unsorted encoding is the same JSON, whatever the order.
	un, ok := AppendItem(nil, item)
	var a, b any
	if !ok || json.Unmarshal(un, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		t.Fatalf("AppendItem: %q, %v", un, ok)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("AppendItem is another item:\n%s\n%s", ja, jb)
	}
	if got := string(MarshalItem(map[string]types.AttributeValue{"x": nil})); got != "null" {
		t.Errorf("an item with a nil value: %s, want null", got)
	}
}

func TestText(t *testing.T) {
	if got := Text(item["m"]); got != `M {b: L [NULL, M {c: SS x,y, k: B AQI=}], y: BOOL true}` {
		t.Errorf("Text = %s", got)
	}
	long := Text(&types.AttributeValueMemberS{Value: strings.Repeat("x", 300)})
	if len(long) != 120 || !strings.HasSuffix(long, "...") {
		t.Errorf("a long value is not cut to 120 characters: %d %q", len(long), long[len(long)-5:])
	}
}

// FuzzSorted: whatever the text, the sorted encoding is valid JSON that
// reads back as the value.
func FuzzSorted(f *testing.F) {
	f.Add("plain", []byte{0})
	f.Add("\x00\x7f\u2028\xff<>&\"\\", []byte{})
	f.Fuzz(func(t *testing.T, s string, b []byte) {
		it := map[string]types.AttributeValue{s: &types.AttributeValueMemberS{Value: s}, "b": &types.AttributeValueMemberB{Value: b}}
		out := MarshalItem(it)
		var got map[string]map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		if !strings.ContainsRune(s, '\uFFFD') && isValidUTF8(s) && got[s]["S"] != s && s != "b" {
			t.Errorf("S %q read back as %q", s, got[s]["S"])
		}
	})
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "") == s }
