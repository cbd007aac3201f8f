package postgres

import (
	"reflect"
	"strconv"
	"testing"
)

func TestRowsFromStats(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name  string
		s     relStats
		rows  string
		count bool
	}{
		{"no pages", relStats{kind: "r", reltuples: -1, mainBytes: 0, blockSize: 8192, canCount: true}, "exactly 0", false},
		{"analysed", relStats{kind: "r", relpages: 10, reltuples: 1000, mainBytes: 10 * 8192, blockSize: 8192}, "about 1000", false},
		{"grown since", relStats{kind: "r", relpages: 10, reltuples: 1000, mainBytes: 15 * 8192, blockSize: 8192}, "about 1500", false},
		{"never analysed", relStats{kind: "r", relpages: 0, reltuples: -1, mainBytes: 8192, blockSize: 8192, canCount: true}, "unknown", true},
		{"analysed empty, filled since", relStats{kind: "r", relpages: 0, reltuples: 0, mainBytes: 8192, blockSize: 8192, canCount: true}, "unknown", true},
		{"vacuumed with only dead rows", relStats{kind: "r", relpages: 3, reltuples: 0, mainBytes: 3 * 8192, blockSize: 8192, canCount: true}, "unknown", true},
		{"too large to count", relStats{kind: "r", reltuples: -1, mainBytes: 64 * mib, blockSize: 8192, canCount: true}, "unknown", false},
		{"not readable", relStats{kind: "r", reltuples: -1, mainBytes: 8192, blockSize: 8192}, "unknown", false},
		{"foreign table", relStats{kind: "f", reltuples: 10, relpages: 1, blockSize: 8192, canCount: true}, "unknown", false},
		{"view", relStats{kind: "v", reltuples: -1, blockSize: 8192, canCount: true}, "unknown", false},
		{"materialized view", relStats{kind: "m", relpages: 1, reltuples: 4, mainBytes: 8192, blockSize: 8192}, "about 4", false},
	} {
		size, count := rowsFromStats(tc.s, 32*mib)
		rows := "unknown"
		if n, exact, known := size.Rows(); known && exact {
			rows = "exactly " + strconv.FormatInt(n, 10)
		} else if known {
			rows = "about " + strconv.FormatInt(n, 10)
		}
		if rows != tc.rows || count != tc.count {
			t.Errorf("%s: rows %s, count %v; want %s, %v", tc.name, rows, count, tc.rows, tc.count)
		}
	}
}

func TestCountable(t *testing.T) {
	nodes := []*relNode{
		{schema: "public", name: "c", heapBytes: 30},
		{schema: "public", name: "a", heapBytes: 10},
		{schema: "public", name: "b", heapBytes: 10},
		{schema: "public", name: "d", heapBytes: 5},
	}
	names := func(ns []*relNode) []string {
		out := []string{}
		for _, n := range ns {
			out = append(out, n.name)
		}
		return out
	}
	// Smallest first, while the total stays within the limit.
	for limit, want := range map[int64][]string{
		0: {}, 5: {"d"}, 24: {"d", "a"}, 25: {"d", "a", "b"}, 54: {"d", "a", "b"}, 55: {"d", "a", "b", "c"},
	} {
		in := append([]*relNode(nil), nodes...)
		if got := names(countable(in, limit)); !reflect.DeepEqual(got, want) {
			t.Errorf("countable(limit %d) = %q, want %q", limit, got, want)
		}
	}
}
