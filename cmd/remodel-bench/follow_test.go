package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"
)

func TestParseStatus(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		name, line string
		want       statusLine
		ok, err    bool
	}{
		{name: "follow line", ok: true,
			line: `{"follow":{"applied":"0/24475E0","behind_s":0.3,"changes":61,"changes_per_s":58,"source":"0/24476A0"}}`,
			want: statusLine{At: at, Follow: true, Applied: "0/24475E0", Source: "0/24476A0", Behind: 300 * time.Millisecond, Changes: 61, ChangesPerSecond: 58}},
		{name: "the follow phase's line", ok: true,
			line: `{"version":1,"command":"migrate","event":"progress","time":"2026-11-23T01:00:16.500Z","elapsed_s":16.5,"phase":"follow","unit":"changes","phase_elapsed_s":6,"done":61,"total":null,"total_exact":false,"percent":null,"rate":10.2,"eta_s":null,"tasks":[{"name":"stream","done":61,"total":null,"total_exact":false,"percent":null,"rate":10.2,"eta_s":null}],"tallies":{"rejected":0},"follow":{"source":"0/24476A0","applied":"0/24475E0","behind_s":0.345,"changes":61,"changes_per_s":58}}`,
			want: statusLine{At: at, Follow: true, Applied: "0/24475E0", Source: "0/24476A0", Behind: 345 * time.Millisecond, Changes: 61, ChangesPerSecond: 58}},
		{name: "binlog positions", ok: true,
			line: `{"follow":{"applied":"binlog.000004:3460582 gtid 0-77-8926","behind_s":0,"changes":0,"changes_per_s":0,"source":"binlog.000004:3460582"}}`,
			want: statusLine{At: at, Follow: true, Applied: "binlog.000004:3460582 gtid 0-77-8926", Source: "binlog.000004:3460582"}},
		{name: "copy end", ok: true,
			line: `{"version":1,"command":"migrate","event":"end","time":"2026-11-26T03:32:10.588Z","elapsed_s":14.365,"phase":"copy","unit":"rows","phase_elapsed_s":13.25,"done":6828,"total":6828,"tasks":[]}`,
			want: statusLine{At: at, CopyEnd: true, CopyDone: 6828, CopyElapsed: 13250 * time.Millisecond}},
		{name: "copy progress", line: `{"version":1,"command":"migrate","event":"progress","phase":"copy","phase_elapsed_s":1,"done":5}`},
		{name: "another phase's end", line: `{"version":1,"command":"migrate","event":"end","phase":"diff","phase_elapsed_s":1,"done":5}`},
		{name: "text", line: `migrate follow: applied 0/24475E0, source at 0/24476A0, 0.3s behind, 61 changes (58/s), 6s elapsed, 0 rejected`},
		{name: "blank", line: "  "},
		{name: "broken JSON", line: `{"follow":{"applied":`, err: true},
		{name: "follow without changes", line: `{"follow":{"applied":"0/1","behind_s":0,"source":"0/1"}}`, err: true},
		{name: "negative lag", line: `{"follow":{"applied":"0/1","behind_s":-1,"changes":1,"source":"0/1"}}`, err: true},
		{name: "copy end without its seconds", line: `{"event":"end","phase":"copy","done":5}`, err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok, err := parseStatus([]byte(c.line), at)
			if (err != nil) != c.err || ok != c.ok || got != c.want {
				t.Errorf("parseStatus(%s) = %+v, %v, %v; want %+v, %v, error %v", c.line, got, ok, err, c.want, c.ok, c.err)
			}
		})
	}
}

func TestCaughtUp(t *testing.T) {
	s := statusLine{Follow: true, Changes: 100}
	if !s.caughtUp(100) || !s.caughtUp(99) {
		t.Error("100 changes applied, nothing waiting: caught up with 100 and 99")
	}
	if s.caughtUp(101) {
		t.Error("100 changes applied: not caught up with 101")
	}
	if s.Behind = time.Millisecond; s.caughtUp(100) {
		t.Error("a change waiting (behind 1 ms): not caught up")
	}
	if (statusLine{CopyEnd: true}).caughtUp(0) {
		t.Error("the copy's end line is no lag line")
	}
}

func TestPercentile(t *testing.T) {
	s := func(n ...float64) []time.Duration {
		ds := make([]time.Duration, len(n))
		for i, v := range n {
			ds[i] = time.Duration(v * float64(time.Second))
		}
		return ds
	}
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(100 - i) // 100 down to 1: unsorted
	}
	for _, c := range []struct {
		name string
		ds   []time.Duration
		q    float64
		want float64
	}{
		{"none", nil, 0.99, 0},
		{"one", s(3), 0.5, 3},
		{"median of four: the lower middle", s(4, 1, 3, 2), 0.5, 2},
		{"p99 of 100", s(hundred...), 0.99, 99},
		{"p50 of 100", s(hundred...), 0.5, 50},
		{"max", s(hundred...), 1, 100},
		{"p99 of 60: the largest", s(append(make([]float64, 59), 7)...), 0.99, 7},
		{"p99 of 200: the third largest (rank 198)", s(append(make([]float64, 197), 4, 5, 9)...), 0.99, 4},
	} {
		if got := percentile(c.ds, c.q); got != time.Duration(c.want*float64(time.Second)) {
			t.Errorf("%s: percentile(%v) = %v, want %vs", c.name, c.q, got, c.want)
		}
	}
	ds := s(3, 1, 2)
	percentile(ds, 0.5)
	if ds[0] != 3*time.Second {
		t.Error("percentile sorted its argument")
	}
}

func TestLagsBetween(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	lines := []statusLine{
		{At: at(-0.5), Follow: true, Behind: 9 * time.Second}, // before the workload
		{At: at(0.5), Follow: true, Behind: 1 * time.Second},
		{At: at(1), CopyEnd: true},
		{At: at(1.5), Follow: true, Behind: 2 * time.Second},
		{At: at(2), Follow: true, Behind: 3 * time.Second}, // at its end: in
		{At: at(2.5), Follow: true, Behind: 8 * time.Second},
	}
	got := lagsBetween(lines, t0, at(2))
	if len(got) != 3 || got[0] != time.Second || got[1] != 2*time.Second || got[2] != 3*time.Second {
		t.Errorf("lagsBetween = %v, want [1s 2s 3s]", got)
	}
}

func TestVMHWM(t *testing.T) {
	status := "Name:\tremodel\nVmPeak:\t  900000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40000 kB\n"
	if got := vmHWM(status); got != 50<<20 {
		t.Errorf("vmHWM = %d, want %d (51200 kB)", got, 50<<20)
	}
	for _, bad := range []string{"VmRSS:\t 1 kB\n", "VmHWM:\t 12 MB\n", "VmHWM:\t x kB\n", ""} {
		if got := vmHWM(bad); got != 0 {
			t.Errorf("vmHWM(%q) = %d, want 0", bad, got)
		}
	}
}

func TestBehind(t *testing.T) {
	// 62.5 changes a second each (500 over 8 workers).
	if !behind(0, 20*time.Millisecond, 62.5) {
		t.Error("none made after 20 ms at 62.5/s: behind")
	}
	if behind(2, 20*time.Millisecond, 62.5) {
		t.Error("2 made after 20 ms at 62.5/s (1.25 due): not behind")
	}
	if !behind(62, time.Second, 62.5) || behind(63, time.Second, 62.5) {
		t.Error("after 1 s at 62.5/s: 62 made is behind, 63 is not")
	}
}

func sampleFollowReport() *followReport {
	r := &followReport{
		Date:      time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Machine:   machine{Cores: 2, CPU: "AMD EPYC", OSArch: "linux/amd64", Go: "go1.26.8"},
		Source:    "postgres, 20 000 rows",
		Workload:  "8 connections",
		Run:       "4 readers, 8 writers",
		LoadStart: "1.00 1.00 1.00", LoadEnd: "2.00 2.00 2.00",
		Rate:    500,
		Copy:    phase{Count: 20000, Wall: 40 * time.Second, CPU: 10 * time.Second, RSS: 60 << 20},
		Backlog: phase{Count: 10000, Wall: 5 * time.Second},
		CatchUp: phase{Count: 10000, Wall: 25 * time.Second, CPU: 5 * time.Second, RSS: 50 << 20},
		Steady:  phase{Count: 30000, Wall: 60 * time.Second, CPU: 9 * time.Second, RSS: 55 << 20},
		Drain:   800 * time.Millisecond,
		Puts:    35000, Deletes: 5000,
		Verified: 24000, VerifyWall: 12 * time.Second,
		FollowerCPU: 15 * time.Second, FollowerRSS: 55 << 20,
	}
	for i := range 60 {
		r.Lags = append(r.Lags, time.Duration(i)*100*time.Millisecond) // 0 to 5.9 s: p99 5.9 s (rank 60 of 60)
	}
	return r
}

func TestFollowReportGolden(t *testing.T) {
	var b bytes.Buffer
	sampleFollowReport().write(&b)
	golden.Check(t, "follow.txt", b.Bytes())
}

func TestFollowReportVerdicts(t *testing.T) {
	r := sampleFollowReport()
	// Copy 500 items/s, catch-up 400 changes/s: 0.8, met; lag p99 5.9 s: not met.
	if got := r.catchUpRatio(); got != 0.8 {
		t.Errorf("catch-up / copy = %v, want 0.8", got)
	}
	var b bytes.Buffer
	r.write(&b)
	out := b.String()
	if !strings.Contains(out, "1.00 1.00 1.00") || !strings.Contains(out, "target >= 0.8              met") || !strings.Contains(out, "target < 5 s               NOT MET") {
		t.Errorf("want the catch-up target met and the lag target not met:\n%s", out)
	}
	r.CatchUp.Wall = 26 * time.Second // 385/s: 0.77
	r.Lags = r.Lags[:50]              // 0 to 4.9 s: p99 4.9 s
	b.Reset()
	r.write(&b)
	out = b.String()
	if !strings.Contains(out, "target >= 0.8              NOT MET") || !strings.Contains(out, "target < 5 s               met") {
		t.Errorf("want the catch-up target not met and the lag target met:\n%s", out)
	}
	r.Lags = nil // no lag line: no verdict of "met"
	b.Reset()
	r.write(&b)
	if !strings.Contains(b.String(), "target < 5 s               NOT MET") {
		t.Errorf("no lag measured must not meet the target:\n%s", b.String())
	}
	if (&followReport{}).catchUpRatio() != 0 {
		t.Error("no copy measured: ratio 0")
	}
}
