package mapping

import (
	"errors"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// TestFormatterNames: the known formatters an error lists are those of
// formatterSpecs, each in the form it is written in.
func TestFormatterNames(t *testing.T) {
	known := strings.Split(formatterNames(), ", ")
	n := 0
	for name, spec := range formatterSpecs {
		forms := map[string][]string{"": {name}, "int": {name + ":N"}, "optint": {name, name + ":N"}, "text": {name + ":X"}}[spec.arg]
		if forms == nil {
			t.Errorf("formatter %s: argument kind %q", name, spec.arg)
		}
		n += len(forms)
		for _, form := range forms {
			if !slices.Contains(known, form) {
				t.Errorf("formatterNames() %q lacks %s", known, form)
			}
		}
	}
	if !slices.IsSorted(known) || len(known) != n {
		t.Errorf("formatterNames() = %q: want each form once, sorted", known)
	}
}

func TestParseTemplateErrors(t *testing.T) {
	known := formatterNames() // from formatterSpecs, TestFormatterNames
	tests := []struct{ src, want string }{
		{"USER#{", "unclosed { at offset 5"},
		{"{a}{b", "unclosed { at offset 3"},
		{"a}", "unmatched } at offset 1 (write }} for a literal brace)"},
		{"{a}}}}", "unmatched } at offset 5 (write }} for a literal brace)"},
		{"{}", "empty placeholder at offset 0"},
		{"x{ |lower}", "empty placeholder at offset 1"},
		{"{a b}", `bad placeholder name "a b" at offset 0`},
		{"{a{b}", `bad placeholder name "a{b" at offset 0`},
		{"{a|nope}", `unknown formatter "nope" in {a|nope} (known: ` + known + `)`},
		{"{a|}", `unknown formatter "" in {a|} (known: ` + known + `)`},
		{"{a|lower:x}", "formatter lower takes no argument in {a|lower:x}"},
		{"{a|pad}", "formatter pad needs a number from 1 to 38, as in pad:8, in {a|pad}"},
		{"{a|pad:0}", "formatter pad needs a number from 1 to 38, as in pad:8, in {a|pad:0}"},
		{"{a|desc:39}", "formatter desc needs a number from 1 to 38, as in desc:8, in {a|desc:39}"},
		{"{a|shard:x}", "formatter shard needs a number from 1 to 38, as in shard:8, in {a|shard:x}"},
		{"{a|default}", "formatter default needs an argument, as in default:none, in {a|default}"},
	}
	for _, tt := range tests {
		_, err := ParseTemplate(tt.src)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseTemplate(%q): error %v, want %q", tt.src, err, tt.want)
		}
	}
}

func TestParseTemplate(t *testing.T) {
	tests := []struct {
		src      string
		fields   []string
		prefix   string
		constant bool
	}{
		{"", nil, "", true},
		{"USER#", nil, "USER#", true},
		{"USER#{user_id}", []string{"user_id"}, "USER#", false},
		{"{a}#{b}#{a}", []string{"a", "b", "a"}, "", false},
		{"{{x}}#{ x | lower | upper }", []string{"x"}, "{x}#", false},
		{"{{}}", nil, "{}", true},
		{"P#{n|pad:10}", []string{"n"}, "P#", false},
	}
	for _, tt := range tests {
		tm, err := ParseTemplate(tt.src)
		if err != nil {
			t.Fatalf("ParseTemplate(%q): %v", tt.src, err)
		}
		if tm.Src != tt.src || !reflect.DeepEqual(tm.Fields(), tt.fields) || tm.Prefix() != tt.prefix || tm.Constant() != tt.constant {
			t.Errorf("%q: src %q fields %q prefix %q constant %v", tt.src, tm.Src, tm.Fields(), tm.Prefix(), tm.Constant())
		}
	}
}

// renderOne renders a template whose placeholders all name column c.
func renderOne(c *introspect.Column, src string, v any) (string, error) {
	tm, err := ParseTemplate(src)
	if err != nil {
		return "", err
	}
	b, err := tm.bind([]*introspect.Column{c})
	if err != nil {
		return "", err
	}
	return b.render([]any{v})
}

func fnvBucket(s string, n uint32) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return strconv.Itoa(int(h.Sum32() % n))
}

func TestTemplateRender(t *testing.T) {
	var (
		intC   = col("n", "bigint", introspect.KindInt)
		decC   = col("n", "numeric", introspect.KindDecimal)
		floatC = col("n", "real", introspect.KindFloat)
		boolC  = col("n", "boolean", introspect.KindBool)
		strC   = col("n", "text", introspect.KindString)
		bytesC = col("n", "bytea", introspect.KindBytes)
		dateC  = col("n", "date", introspect.KindDate)
		tsC    = precision(col("n", "timestamp(3)", introspect.KindTimestamp), 3)
		tstzC  = precision(col("n", "timestamptz(6)", introspect.KindTimestampTZ), 6)
	)
	instant := time.Date(2024, 2, 29, 13, 14, 15, 123456789, time.UTC)
	inKST := instant.In(time.FixedZone("KST", 9*3600))
	tests := []struct {
		name    string
		c       *introspect.Column
		src     string
		v       any
		want    string
		wantErr string
	}{
		{"int", intC, "U#{n}", int64(-42), "U#-42", ""},
		{"int beyond int64", intC, "U#{n}", "18446744073709551615", "U#18446744073709551615", ""},
		{"decimal normalized", decC, "{n}", "0012.30", "12.3", ""},
		{"decimal NaN", decC, "{n}", "NaN", "", "{n}: NaN cannot be stored as a DynamoDB number"},
		{"float", floatC, "{n}", 0.1, "0.1", ""},
		{"float NaN", floatC, "{n}", math.NaN(), "", "{n}: NaN cannot be stored as a DynamoDB number"},
		{"bool", boolC, "{n}", true, "true", ""},
		{"literal braces", strC, "{{{n}}}", "x", "{x}", ""},
		{"lower", strC, "{n|lower}", "MiXeD Ü", "mixed ü", ""},
		{"upper", strC, "{n|upper}", "MiXeD ü", "MIXED Ü", ""},
		{"lower of an int", intC, "{n|lower}", int64(42), "42", ""},
		{"hex", bytesC, "{n|hex}", []byte{0xca, 0xfe, 0x01}, "cafe01", ""},
		{"hex then upper", bytesC, "{n|hex|upper}", []byte{0xca, 0xfe}, "CAFE", ""},
		{"base64", bytesC, "{n|base64}", []byte{0, 0xff, 'a'}, "AP9h", ""},
		{"shard of text", strC, "{n|shard:10}", "user-1", fnvBucket("user-1", 10), ""},
		{"shard of an int", intC, "{n|shard:7}", int64(12345), fnvBucket("12345", 7), ""},
		{"shard of bytes", bytesC, "{n|shard:16}", []byte("raw"), fnvBucket("raw", 16), ""},
		{"shard after lower", strC, "{n|lower|shard:5}", "ABC", fnvBucket("abc", 5), ""},
		{"default unused", strC, "{n|default:none}", "x", "x", ""},
		{"default used", strC, "E#{n|default:none}", nil, "E#none", ""},
		{"default with colons", strC, "{n|default:a:b}", nil, "a:b", ""},
		{"default empty", strC, "E#{n|default:}", nil, "E#", ""},
		{"default then formatter", intC, "{n|default:7|pad:3}", nil, "007", ""},
		{"formatter then default", dateC, "{n|date|default:never}", nil, "never", ""},
		{"NULL without default", intC, "U#{n}", nil, "", "{n}: column n is NULL (add |default:X to the placeholder to allow it)"},
		{"NULL through formatters", strC, "U#{n|lower}", nil, "", "{n}: column n is NULL (add |default:X to the placeholder to allow it)"},
		{"error value", intC, "U#{n|default:0}", errors.New("zero date"), "", "{n}: zero date"},

		{"pad int", intC, "{n|pad:5}", int64(42), "00042", ""},
		{"pad zero", intC, "{n|pad:1}", int64(0), "0", ""},
		{"pad exact width", intC, "{n|pad:3}", int64(999), "999", ""},
		{"pad too wide", intC, "{n|pad:5}", int64(123456), "", "{n}: value 123456 has more than 5 integer digits (pad:5)"},
		{"pad negative", intC, "{n|pad:5}", int64(-1), "", "{n}: pad:5 cannot keep the order of the negative value -1"},
		{"pad beyond int64", intC, "{n|pad:22}", "18446744073709551615", "0018446744073709551615", ""},
		{"pad decimal", decC, "{n|pad:4}", "3.1400", "0003.14", ""},
		{"pad decimal below 1", decC, "{n|pad:2}", "0.5", "00.5", ""},
		{"pad decimal negative zero", decC, "{n|pad:2}", "-0.0", "00", ""},
		{"pad decimal in E notation", decC, "{n|pad:2}", "1.5E-70", "00." + strings.Repeat("0", 69) + "15", ""},
		{"pad decimal large E notation", decC, "{n|pad:38}", "1E70", "", "{n}: value 10000000000000000000000000000000000000000000000000000000000000000000000 has more than 38 integer digits (pad:38)"},
		{"pad decimal negative", decC, "{n|pad:4}", "-0.5", "", "{n}: pad:4 cannot keep the order of the negative value -0.5"},

		{"desc", intC, "{n|desc:3}", int64(1), "998", ""},
		{"desc zero", intC, "{n|desc:3}", int64(0), "999", ""},
		{"desc max", intC, "{n|desc:3}", int64(999), "000", ""},
		{"desc too wide", intC, "{n|desc:3}", int64(1000), "", "{n}: value 1000 has more than 3 digits (desc:3)"},
		{"desc negative", intC, "{n|desc:3}", int64(-1), "", "{n}: desc:3 needs a non-negative value, got -1"},
		{"desc 19 digits", intC, "{n|desc:19}", int64(math.MaxInt64), "0776627963145224192", ""},
		{"desc 25 digits", intC, "{n|desc:25}", int64(1), "9999999999999999999999998", ""},
		{"desc beyond int64", intC, "{n|desc:20}", "18446744073709551615", "81553255926290448384", ""},
		{"desc beyond int64 too wide", intC, "{n|desc:19}", "18446744073709551615", "", "{n}: value 18446744073709551615 has more than 19 digits (desc:19)"},
		{"desc negative beyond int64", intC, "{n|desc:20}", "-18446744073709551615", "", "{n}: desc:20 needs a non-negative integer, got -18446744073709551615"},

		{"iso", tstzC, "{n|iso}", inKST, "2024-02-29T13:14:15.123456Z", ""},
		{"iso of a date", dateC, "{n|iso}", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), "2024-02-29T00:00:00.000000Z", ""},
		{"iso year 10000", tstzC, "{n|iso}", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "", "{n}: year 10000 does not fit a fixed-width timestamp"},
		{"date", tstzC, "{n|date}", inKST, "2024-02-29", ""},
		{"date of a local time after midnight UTC", tstzC, "{n|date}", time.Date(2024, 3, 1, 1, 0, 0, 0, time.FixedZone("KST", 9*3600)), "2024-02-29", ""},
		{"unix", tstzC, "{n|unix}", inKST, "1709212455", ""},
		{"unix epoch", tsC, "{n|unix}", time.Unix(0, 0).UTC(), "0000000000", ""},
		{"unix before 1970", tsC, "{n|unix}", time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), "", "{n}: timestamp 1969-12-31T23:59:59Z is outside 1970..2286 and does not fit unix"},
		{"unix after 2286", tsC, "{n|unix}", time.Date(2286, 11, 20, 17, 46, 40, 0, time.UTC), "", "{n}: timestamp 2286-11-20T17:46:40Z is outside 1970..2286 and does not fit unix"},
		{"unixms", tstzC, "{n|unixms}", inKST, "1709212455123", ""},
		{"unixms epoch", tsC, "{n|unixms}", time.Unix(0, 0).UTC(), "0000000000000", ""},
		{"timestamp default text", tsC, "T#{n}", instant, "T#2024-02-29T13:14:15.123", ""},
		{"timestamptz default text", tstzC, "T#{n}", inKST, "T#2024-02-29T13:14:15.123456Z", ""},
		{"date default text", dateC, "D#{n}", instant, "D#2024-02-29", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderOne(tt.c, tt.src, tt.v)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q (rendered %q)", err, tt.wantErr, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestShardStable pins a few buckets so that a change of hash (which would
// move every item of a sharded key) fails a test.
func TestShardStable(t *testing.T) {
	c := col("n", "text", introspect.KindString)
	for _, tt := range []struct{ v, want string }{{"a", "4"}, {"user-1", "4"}, {"", "5"}, {"b", "5"}, {"user-2", "5"}} {
		got, err := renderOne(c, "{n|shard:8}", tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("shard:8 of %q = %s, want %s", tt.v, got, tt.want)
		}
	}
}
