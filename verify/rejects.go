package verify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/remodel-dev/remodel/mapping"
)

// Rejection is a source row migrate rejected, as a line of its rejected-rows
// file records it.
type Rejection struct {
	Entity string `json:"entity"`
	Row    string `json:"row"` // the row's source key, mapping.Entity.SourceKey
	Reason string `json:"reason"`
	Line   int    `json:"line"` // the line of the rejects file
}

// Rejects are the rows of a rejected-rows file: rows that are accepted as
// having no item. A row is matched by its entity and its source key string,
// exactly as migrate wrote it.
//
// Migrate writes one line per rejected row. Several rows can share a
// source key when it is a key the mapping declares (key:) and the rows
// break it: migrate rejects each of them, one line each. So every line
// counts as a rejected row, while List names each key once.
type Rejects struct {
	File string
	List []Rejection // in file order; a row named twice is kept once
	// index: entity → source key → position in List.
	index map[string]map[string]int
	// rows: entity → lines, each a rejected row.
	rows map[string]int64
}

// ReadRejects reads a rejected-rows file (JSON lines {"entity","row",
// "reason"}, as migrate --rejects writes it). A malformed line or an entity
// the mapping lacks is an error naming file:line.
func ReadRejects(path string, plan *mapping.Plan) (*Rejects, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("verify: reading the rejects file: %w", err)
	}
	defer f.Close()
	return ParseRejects(path, f, plan)
}

// ParseRejects reads a rejected-rows file from r; name is used in errors.
func ParseRejects(name string, r io.Reader, plan *mapping.Plan) (*Rejects, error) {
	rj := &Rejects{File: name, index: map[string]map[string]int{}, rows: map[string]int64{}}
	entities := make([]string, len(plan.Entities))
	for i, e := range plan.Entities {
		entities[i] = e.Name
		rj.index[e.Name] = map[string]int{}
	}
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("verify: reading %s: %w", name, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			var x rejectLine
			if jerr := json.Unmarshal(line, &x); jerr != nil {
				return nil, fmt.Errorf("verify: %s:%d: not a rejected-row line ({\"entity\", \"row\", \"reason\"}): %v", name, n, jerr)
			}
			switch {
			case x.Entity == nil || *x.Entity == "":
				return nil, fmt.Errorf("verify: %s:%d: the line names no entity", name, n)
			case x.Row == nil || *x.Row == "":
				return nil, fmt.Errorf("verify: %s:%d: the line names no row", name, n)
			}
			rows, ok := rj.index[*x.Entity]
			if !ok {
				return nil, fmt.Errorf("verify: %s:%d: entity %q is not in the mapping (entities: %s)", name, n, *x.Entity, strings.Join(entities, ", "))
			}
			rj.rows[*x.Entity]++
			if _, dup := rows[*x.Row]; !dup {
				rows[*x.Row] = len(rj.List)
				rj.List = append(rj.List, Rejection{Entity: *x.Entity, Row: *x.Row, Reason: x.Reason, Line: n})
			}
		}
		if err != nil { // io.EOF
			return rj, nil
		}
	}
}

// rejectLine is one line of a rejected-rows file; unknown fields are
// allowed, so a file from a newer migrate still reads.
type rejectLine struct {
	Entity *string `json:"entity"`
	Row    *string `json:"row"`
	Reason string  `json:"reason"`
}

// count is how many rows of the entity are accepted as rejected: its
// lines in the file.
func (rj *Rejects) count(entity string) int64 { return rj.rows[entity] }

// accepts says whether the row of the entity is accepted as rejected.
func (rj *Rejects) accepts(e *mapping.Entity, row []any) bool {
	if rj == nil || len(rj.index[e.Name]) == 0 {
		return false
	}
	_, ok := rj.index[e.Name][e.SourceKey(row)]
	return ok
}

// acceptedReject says whether the row is accepted as rejected; the item
// check then leaves it out. It records that the row was met and the key of
// the item it renders, if it renders one, for checkRejects.
func (v *verifier) acceptedReject(e *mapping.Entity, row []any) bool {
	if v.o.Rejects == nil {
		return false
	}
	rows := v.o.Rejects.index[e.Name]
	if len(rows) == 0 {
		return false
	}
	i, ok := rows[e.SourceKey(row)]
	if !ok {
		return false
	}
	v.rejSeen[i] = true
	if item, err := e.Render(row); err == nil {
		v.rejKeys[i] = v.t.KeyString(item)
	}
	return true
}

// checkRejects fails the item check of an entity for each accepted reject
// that is in the table after all (its item is there and no other row claims
// it), or that the source does not have.
func (v *verifier) checkRejects(rep *Report) {
	if v.o.Rejects == nil {
		return
	}
	checks := map[string]*ItemCheck{}
	for i := range rep.Items {
		checks[rep.Items[i].Entity] = &rep.Items[i]
	}
	for i, rj := range v.o.Rejects.List {
		ic := checks[rj.Entity]
		if ic == nil || v.countFailed[rj.Entity] {
			continue
		}
		where := fmt.Sprintf("%s:%d", v.o.Rejects.File, rj.Line)
		switch {
		case !v.rejSeen[i] && v.itemsComplete():
			ic.Problems.Add(Problem{Kind: KindRejectedUnknown, Entity: rj.Entity, SourceKey: rj.Row,
				Message: fmt.Sprintf("%s names row %s of entity %s as rejected, but the source has no such row", where, rj.Row, rj.Entity)})
			ic.OK = false
		case v.rejKeys[i] != "" && v.keys != nil && v.keys.claimLate(v.rejKeys[i]):
			ic.Problems.Add(Problem{Kind: KindRejectedPresent, Entity: rj.Entity, Key: v.rejKeys[i], SourceKey: rj.Row,
				Message: fmt.Sprintf("row %s of entity %s is accepted as rejected (%s: %s), but the table holds its item %s", rj.Row, rj.Entity, where, rj.Reason, v.rejKeys[i])})
			ic.OK = false
		}
	}
}

// listRejects puts the accepted rejects into the report: entities in
// mapping order, rows in key order, the first MaxProblems of them.
func (v *verifier) listRejects(rep *Report) {
	if v.o.Rejects == nil {
		return
	}
	order := map[string]int{}
	for i, e := range v.o.Plan.Entities {
		order[e.Name] = i
	}
	rows := slices.Clone(v.o.Rejects.List)
	slices.SortStableFunc(rows, func(a, b Rejection) int {
		if d := order[a.Entity] - order[b.Entity]; d != 0 {
			return d
		}
		return naturalCompare(a.Row, b.Row)
	})
	if v.o.MaxProblems > 0 && len(rows) > v.o.MaxProblems {
		rows = rows[:v.o.MaxProblems]
	}
	rep.Rejects = &RejectsReport{File: v.o.Rejects.File, Total: int64(len(v.o.Rejects.List)), Rows: rows}
}

// naturalCompare orders row keys as people read them: runs of digits by
// their number (id=3 before id=11), everything else byte by byte; keys
// equal that way (id=7, id=07) fall back to their bytes.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ei, ej := digitsEnd(a, i), digitsEnd(b, j)
			na, nb := strings.TrimLeft(a[i:ei], "0"), strings.TrimLeft(b[j:ej], "0")
			if d := len(na) - len(nb); d != 0 {
				return d
			}
			if d := strings.Compare(na, nb); d != 0 {
				return d
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			return int(a[i]) - int(b[j])
		}
		i++
		j++
	}
	if d := (len(a) - i) - (len(b) - j); d != 0 {
		return d
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}
