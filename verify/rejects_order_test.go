package verify

import (
	"slices"
	"strings"
	"testing"
)

func TestNaturalCompare(t *testing.T) {
	keys := []string{"id=13", "id=3", "id=11", "id=007", "id=7", "a=2,b=10", "a=2,b=9", "a=10,b=1", "name=\"x\"", "id=", "id=100000000000000000000001"}
	want := []string{"a=2,b=9", "a=2,b=10", "a=10,b=1", "id=", "id=3", "id=007", "id=7", "id=11", "id=13", "id=100000000000000000000001", "name=\"x\""}
	slices.SortFunc(keys, naturalCompare)
	if !slices.Equal(keys, want) {
		t.Fatalf("sorted:\n%s\nwant:\n%s", strings.Join(keys, "\n"), strings.Join(want, "\n"))
	}
	for _, k := range want {
		if naturalCompare(k, k) != 0 {
			t.Errorf("naturalCompare(%q, itself) != 0", k)
		}
	}
}
