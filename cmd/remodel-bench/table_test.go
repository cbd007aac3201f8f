package main

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"
)

func sampleReport(rounds int) *report {
	return &report{
		Date:    time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600)),
		Machine: machine{Cores: 2, CPU: "AMD EPYC", OSArch: "linux/amd64", Go: "go1.26.8"},
		Header:  [][2]string{{"source", "postgres, 100 000 rows"}},
		Rounds:  rounds,
		Read:    result{Name: "raw source read (pgx, text)", Items: 100000, Wall: 400 * time.Millisecond, CPU: 200 * time.Millisecond, MinRate: 200000, MaxRate: 260000},
		Sink:    result{Name: "raw sink (BatchWriteItem, 8 writers)", Items: 100000, Wall: 10 * time.Second, CPU: 3 * time.Second, Emulator: 15 * time.Second, MinRate: 9000, MaxRate: 10500},
		Remodel: result{Name: "remodel -> DynamoDB Local", Items: 100000, Wall: 12500 * time.Millisecond, CPU: 5 * time.Second, MaxRSS: 80 << 20, Emulator: 16 * time.Second, MinRate: 7000, MaxRate: 8100},
		Null:    result{Name: "remodel -> null sink", Items: 100000, Wall: 2 * time.Second, CPU: 3500 * time.Millisecond, MaxRSS: 60 << 20, MinRate: 45000, MaxRate: 52000},
		Verify:  result{Name: "remodel verify (the e2e table)", Items: 100000, Wall: 10 * time.Second, CPU: 4 * time.Second, MaxRSS: 90 << 20, Emulator: 14 * time.Second, MinRate: 9000, MaxRate: 11000},
		Notes:   []string{"a note"},
	}
}

func TestReportGolden(t *testing.T) {
	for _, c := range []struct {
		file   string
		rounds int
	}{{"report.txt", 1}, {"report-rounds.txt", 3}} {
		var b bytes.Buffer
		sampleReport(c.rounds).write(&b)
		golden.Check(t, c.file, b.Bytes())
	}
}

func TestRatios(t *testing.T) {
	r := sampleReport(1)
	e2e, null := r.ratios()
	// Read 250 000/s, sink 10 000/s, remodel 8 000/s, null 50 000/s.
	if e2e != 0.8 || null != 0.2 {
		t.Errorf("ratios %v, %v; want 0.8 (8 000 / min(250 000, 10 000)) and 0.2 (50 000 / 250 000)", e2e, null)
	}
	r.Sink.Wall = 100 * time.Millisecond // a sink faster than the read: the read is the ceiling
	if e2e, _ := r.ratios(); e2e != 0.032 {
		t.Errorf("end to end %v, want 8 000 / 250 000 = 0.032", e2e)
	}
	if e2e, null := (&report{}).ratios(); e2e != 0 || null != 0 {
		t.Errorf("empty report: %v, %v", e2e, null)
	}
}

func TestVerifyRatio(t *testing.T) {
	r := sampleReport(1)
	if got := r.verifyRatio(); got != 0.8 {
		t.Errorf("verify / migrate %v, want 0.8 (10 s / 12.5 s)", got)
	}
	r.Verify = result{} // not measured (-null-only): no ratio, no row
	if got := r.verifyRatio(); got != 0 {
		t.Errorf("verify / migrate without verify: %v, want 0", got)
	}
	var b bytes.Buffer
	r.write(&b)
	if strings.Contains(b.String(), "verify") {
		t.Errorf("a report without verify mentions it:\n%s", b.String())
	}
}

func TestResultFigures(t *testing.T) {
	r := result{Items: 250000, Wall: 5 * time.Second, CPU: 2500 * time.Millisecond}
	if r.Rate() != 50000 || r.CPUPerMillion() != 10 || r.Cores() != 0.5 {
		t.Errorf("rate %v, CPU s/M %v, cores %v; want 50000, 10, 0.5", r.Rate(), r.CPUPerMillion(), r.Cores())
	}
	if z := (result{}); z.Rate() != 0 || z.CPUPerMillion() != 0 || z.Cores() != 0 {
		t.Errorf("zero result: %v %v %v", z.Rate(), z.CPUPerMillion(), z.Cores())
	}
}

func TestMedian(t *testing.T) {
	rs := []result{
		{Name: "a", Items: 100, Wall: 4 * time.Second}, // 25/s
		{Name: "b", Items: 100, Wall: time.Second},     // 100/s
		{Name: "c", Items: 100, Wall: 2 * time.Second}, // 50/s
	}
	m := median(rs)
	if m.Name != "c" || m.MinRate != 25 || m.MaxRate != 100 {
		t.Errorf("median %+v, want round c with range 25 to 100", m)
	}
	if m := median(rs[:2]); m.Name != "a" {
		t.Errorf("median of two: round %s, want the slower, a", m.Name)
	}
	if m := median(rs[1:2]); m.Name != "b" || m.MinRate != 0 || m.MaxRate != 0 {
		t.Errorf("median of one: %+v", m)
	}
	if rs[0].Name != "a" || rs[1].Name != "b" {
		t.Error("median reordered its argument")
	}
	if d := medianDuration([]time.Duration{3, 1, 2}); d != 2 {
		t.Errorf("medianDuration = %v", d)
	}
}

func TestThousands(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 999: "999", 1000: "1 000", 12345.6: "12 346", 1234567: "1 234 567"} {
		if got := thousands(in); got != want {
			t.Errorf("thousands(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestCPUModel(t *testing.T) {
	info := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC   7B13 64-Core Processor\nflags\t\t: fpu\n\nprocessor\t: 1\nmodel name\t: other\n"
	if got := cpuModel(strings.NewReader(info)); got != "AMD EPYC 7B13 64-Core Processor" {
		t.Errorf("cpuModel = %q", got)
	}
	if got := cpuModel(strings.NewReader("processor : 0\n")); got != "" {
		t.Errorf("cpuModel without a model name = %q", got)
	}
}

func TestStatCPU(t *testing.T) {
	// A command name with a space and a parenthesis; utime 250, stime 50 ticks.
	stat := "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 9000 0 3 0 250 50 0 0 20 0 40 0 123 456 789"
	if d, ok := statCPU(stat); !ok || d != 3*time.Second {
		t.Errorf("statCPU = %v, %v; want 3s", d, ok)
	}
	if _, ok := statCPU("4242 (java) S 1"); ok {
		t.Error("a short line was read")
	}
	for x := 0; selfCPU() < 50*time.Millisecond; x++ { // burn some CPU to see
	}
	if d, ok := processCPU(os.Getpid()); runtime.GOOS == "linux" && (!ok || d <= 0) {
		t.Errorf("processCPU(self) = %v, %v", d, ok)
	}
}
