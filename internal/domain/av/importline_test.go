package av

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestParseImportLine: the strict reader reads what the codec writes,
// every type, and refuses what ImportTable's format does not allow.
func TestParseImportLine(t *testing.T) {
	item := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#1 \"q\" \u00e9\n"},
		"n":  &types.AttributeValueMemberN{Value: "-12.5e3"},
		"b":  &types.AttributeValueMemberB{Value: []byte{0, 1, 255}},
		"t":  &types.AttributeValueMemberBOOL{Value: true},
		"z":  &types.AttributeValueMemberNULL{Value: true},
		"ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns": &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
		"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}, &types.AttributeValueMemberL{Value: []types.AttributeValue{}}}},
		"m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberN{Value: "1"}}},
	}
	line, ok := AppendImportLine(nil, item)
	if !ok {
		t.Fatal("AppendImportLine")
	}
	got, err := ParseImportLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := MarshalItem(got), MarshalItem(item); !bytes.Equal(a, b) {
		t.Errorf("read back %s, want %s", a, b)
	}
	for _, bad := range []string{
		`{"PK":{"S":"x"}}`,
		`{"Item":{"PK":{"S":"x"}},"Other":1}`,
		`{"Item":{"PK":{"S":"x","N":"1"}}}`,
		`{"Item":{"PK":{"N":1}}}`,
		`{"Item":{"PK":{"N":"one"}}}`,
		`{"Item":{"PK":{"N":""}}}`,
		`{"Item":{"PK":{"B":"not base64!"}}}`,
		`{"Item":{"PK":{"NULL":false}}}`,
		`{"Item":{"PK":{"SS":[]}}}`,
		`{"Item":{"PK":{"X":"x"}}}`,
		`{"Item":{"PK":"x"}}`,
		`{"Item":{"PK":{"S":"x"}}} {}`,
		`{"Item":null}`,
		`{"Item":{"PK":{"L":null}}}`,
		`[]`,
	} {
		if _, err := ParseImportLine([]byte(bad)); err == nil {
			t.Errorf("%s: read, want an error", bad)
		}
	}
}

// TestReadImportLineTakes: the lines migrate --to writes are read by the
// scanner itself, not left to encoding/json.
func TestReadImportLineTakes(t *testing.T) {
	line, _ := AppendImportLine(nil, item)
	line = bytes.ReplaceAll(line, []byte(`\"`), nil) // the scanner leaves escapes to encoding/json
	line = bytes.ReplaceAll(line, []byte(`\n`), nil)
	line = bytes.ReplaceAll(line, []byte(`\u007f`), nil)
	line = bytes.ReplaceAll(line, []byte(`\u2028`), nil)
	if _, ok := readImportLine(line); !ok {
		t.Errorf("readImportLine left %s to encoding/json", line)
	}
}

// FuzzParseImportLine: the scanner reads a line only to the item
// encoding/json reads from it (and encoding/json reads every line the
// scanner does).
func FuzzParseImportLine(f *testing.F) {
	line, _ := AppendImportLine(nil, item)
	f.Add(line)
	for _, s := range []string{
		`{"Item":{}}`, ` {"Item" : {"a" : {"S" : "x"} } } ` + "\n",
		`{"Item":{"a":{"N":"-0012.50"},"b":{"NS":["1","2e3"]},"c":{"BS":["AQ==",""]}}}`,
		`{"Item":{"a":{"S":"x"},"a":{"S":"y"}}}`, `{"Item":{"a":{"BOOL":null}}}`,
		`{"Item":{"a":{"M":{"b":{"L":[{"NULL":true},{"BOOL":false}]}}}}}`,
		`{"Item":{"a":{"S":"\u00e9"}}}`, `{"Item":{"a":{"N":"1/2"}}}`, `{"Item":{}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := readImportLine(b)
		slow, err := parseImportLineJSON(b)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("%q: the scanner read it, encoding/json says %v", b, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: the scanner read %s, encoding/json %s", b, MarshalItem(fast), MarshalItem(slow))
		}
	})
}
