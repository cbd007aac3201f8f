package migrate

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

func TestParseWarmThroughput(t *testing.T) {
	for _, c := range []struct {
		in   string
		want WarmThroughput
		err  string
	}{
		{"12000", WarmThroughput{Write: 12000}, ""},
		{"12000,24000", WarmThroughput{Write: 12000, Read: 24000}, ""},
		{" 40000 , 1 ", WarmThroughput{Write: 40000, Read: 1}, ""},
		{"", WarmThroughput{}, "not a positive number"},
		{"0", WarmThroughput{}, "not a positive number"},
		{"-5", WarmThroughput{}, "not a positive number"},
		{"1,2,3", WarmThroughput{}, "want WRITES or WRITES,READS"},
		{"12k", WarmThroughput{}, "not a positive number"},
		{",5", WarmThroughput{}, "not a positive number"},
	} {
		got, err := ParseWarmThroughput(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %v, want an error saying %q", c.in, err, c.err)
		case c.err == "" && (err != nil || *got != c.want):
			t.Errorf("%q: %+v, %v, want %+v", c.in, got, err, c.want)
		}
	}
}

// TestWarmThroughputInput: --warm-throughput sets CreateTable's
// WarmThroughput, write units alone or with read units; without it the
// request has none.
func TestWarmThroughputInput(t *testing.T) {
	for _, c := range []struct {
		warm        *WarmThroughput
		write, read int64 // 0: not set
	}{
		{nil, 0, 0},
		{&WarmThroughput{Write: 12000}, 12000, 0},
		{&WarmThroughput{Write: 12000, Read: 30000}, 12000, 30000},
	} {
		in := createTableInput(weeklyTable(), "t1")
		c.warm.apply(in)
		if c.warm == nil {
			if in.WarmThroughput != nil {
				t.Errorf("no warm throughput asked: the request has %+v", in.WarmThroughput)
			}
			continue
		}
		if in.WarmThroughput == nil {
			t.Fatalf("%+v: the request has no WarmThroughput", c.warm)
		}
		w, r := in.WarmThroughput.WriteUnitsPerSecond, in.WarmThroughput.ReadUnitsPerSecond
		if aws.ToInt64(w) != c.write || (c.read == 0) != (r == nil) || aws.ToInt64(r) != c.read {
			t.Errorf("%+v: WarmThroughput write %v read %v", c.warm, aws.ToInt64(w), aws.ToInt64(r))
		}
	}
}
