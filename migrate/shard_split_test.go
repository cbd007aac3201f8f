package migrate

import "testing"

// TestShardSplit: for n shards (1..7) and an entity cut into m key ranges
// (1..9, fewer than the shards too), every range belongs to exactly one
// shard (ownedTracks over the shards takes each track once, in key order),
// each shard gets m/n ranges rounded down or up, and the first ranges of
// different entities start at different shards (so that entities of one
// range each do not all land on shard 1).
func TestShardSplit(t *testing.T) {
	reads := []string{"user", "order", "subscribe_user", "personal", "a", "b", "c", "d"}
	for n := 1; n <= 7; n++ {
		first := map[int]bool{}
		for _, read := range reads {
			for m := 1; m <= 9; m++ {
				tracks := make([]*entityTrack, m)
				for j := range tracks {
					tracks[j] = &entityTrack{}
				}
				owner := make(map[*entityTrack]int, m)
				for i := 1; i <= n; i++ {
					s := Shard{Index: i, Count: n}
					got := ownedTracks(s, read, tracks)
					if len(got) < m/n || len(got) > (m+n-1)/n {
						t.Errorf("n=%d, %s in %d ranges: shard %d owns %d ranges, want %d to %d", n, read, m, i, len(got), m/n, (m+n-1)/n)
					}
					last := -1
					for _, et := range got {
						j := indexOf(tracks, et)
						if j <= last {
							t.Errorf("n=%d, %s in %d ranges: shard %d's ranges are not in key order", n, read, m, i)
						}
						last = j
						if prev, ok := owner[et]; ok {
							t.Errorf("n=%d, %s in %d ranges: range %d is shard %d's and shard %d's", n, read, m, j, prev, i)
						}
						owner[et] = i
					}
				}
				for j, et := range tracks {
					if _, ok := owner[et]; !ok {
						t.Errorf("n=%d, %s in %d ranges: range %d is no shard's", n, read, m, j)
					}
				}
				for i := 1; i <= n; i++ {
					if (Shard{Index: i, Count: n}).owns(read, 0) {
						first[i] = true
					}
				}
			}
		}
		if n <= 4 && len(first) < n {
			t.Errorf("n=%d: the first ranges of %d entities start at only %d shards", n, len(reads), len(first))
		}
	}
	if !(Shard{}).owns("user", 5) {
		t.Error("an unsharded run does not own every range")
	}
}

func indexOf(tracks []*entityTrack, et *entityTrack) int {
	for j, x := range tracks {
		if x == et {
			return j
		}
	}
	panic("no such track")
}
