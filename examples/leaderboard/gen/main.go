// Command gen prints the data of the leaderboard example as one SQL script
// that loads unchanged into PostgreSQL and into MySQL/MariaDB, after
// schema.postgres.sql or schema.mysql.sql.
//
//	go run ./examples/leaderboard/gen > examples/leaderboard/data.sql
//
// The output is deterministic: a fixed seed, fixed lists, no clock.
//
// The data is shaped to test the key design of README.md:
//   - 200 users, each with a few friends (a friendship is two rows, one per
//     direction), and a few users with none, whose friends ranking holds only
//     themselves;
//   - 8 weeks, Friday to Thursday, the article's 2014-05-09,2014-05-15 among them;
//   - a user plays in most weeks, several times a week, so the weekly best is a
//     real aggregate (max over 1 to 5 plays), and in some weeks not at all;
//   - scores from 0 to 99998 around a per-user skill, so the weekly top 10 and
//     the friends rankings have a clear order, and two ties put in on purpose
//     for verify's tie rule: the 10th and 11th best of week 5 (the LIMIT 10
//     cuts through them) and the two best of week 6.
//
// What the script relies on, so that one file serves both engines: multi-row
// INSERT statements of at most 500 rows in foreign-key order, single-quoted
// literals without backslashes or semicolons, dates as 'YYYY-MM-DD' and
// timestamps as 'YYYY-MM-DD HH:MM:SS' in UTC, read as UTC because the first
// statements set the session's encoding (UTF-8) and time zone (UTC) in both
// engines (see session).
package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Seeds of the PCG generator. Change them and data.sql changes.
const seed1, seed2 = 20140509, 0x6c6561646572

const (
	users            = 200
	weeks            = 8
	maxRowsPerInsert = 500
)

// firstWeek is the Friday the first ranking week starts on.
var firstWeek = time.Date(2014, 4, 11, 0, 0, 0, 0, time.UTC)

// session makes PostgreSQL and MySQL/MariaDB read the script as UTF-8 and its
// timestamps as UTC (the same statements as the board example's, which says
// how they work).
var session = []string{
	`SET /*! NAMES utf8mb4, @pg_client_encoding = ' */ client_encoding = UTF8 /*! ' */;`,
	`SET /*! time_zone = '+00:00', @pg_time_zone = ' */ TIME ZONE UTC /*! ' */;`,
}

var (
	familyNames = []string{"김", "이", "박", "최", "정", "강", "조", "윤", "장", "임"}
	givenNames  = []string{"민준", "서연", "도윤", "하은", "시우", "지유", "예준", "서윤", "주원", "지민", "하준", "수아"}
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
}

func run(out io.Writer) error {
	w := bufio.NewWriter(out)
	if err := write(w, generate()); err != nil {
		return err
	}
	return w.Flush()
}

type table struct {
	name string
	cols []string
	rows [][]string // SQL literals
}

type (
	date time.Time
	ts   time.Time
)

func lit(v any) string {
	switch v := v.(type) {
	case int:
		return strconv.Itoa(v)
	case string:
		if strings.ContainsAny(v, "\\;'\x00\r\n") {
			panic(fmt.Sprintf("gen: unsafe string literal %q", v))
		}
		return "'" + v + "'"
	case date:
		return "'" + time.Time(v).Format(time.DateOnly) + "'"
	case ts:
		return "'" + time.Time(v).Format(time.DateTime) + "'"
	}
	panic(fmt.Sprintf("gen: no SQL literal for %T", v))
}

func row(vs ...any) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = lit(v)
	}
	return out
}

// generate returns the tables in foreign-key order.
func generate() []table {
	r := rand.New(rand.NewPCG(seed1, seed2))
	us := table{name: "users", cols: []string{"user_id", "name"}}
	skill := make([]int, users+1)
	for id := 1; id <= users; id++ {
		name := familyNames[r.IntN(len(familyNames))] + givenNames[r.IntN(len(givenNames))] + strconv.Itoa(id)
		us.rows = append(us.rows, row(id, name))
		skill[id] = 20000 + r.IntN(60000)
	}

	// Each user asks two others; every tenth user asks nobody (and may
	// still be asked). A pair is stored once per direction.
	friends := map[[2]int]bool{}
	fs := table{name: "friendships", cols: []string{"user_id", "friend_id"}}
	for id := 1; id <= users; id++ {
		if id%10 == 0 {
			continue
		}
		for range 2 {
			f := 1 + r.IntN(users)
			if f == id || f%10 == 0 || friends[[2]int{id, f}] {
				continue
			}
			friends[[2]int{id, f}], friends[[2]int{f, id}] = true, true
		}
	}
	// Primary-key order.
	for a := 1; a <= users; a++ {
		for b := 1; b <= users; b++ {
			if friends[[2]int{a, b}] {
				fs.rows = append(fs.rows, row(a, b))
			}
		}
	}

	ws := table{name: "weeks", cols: []string{"week_id", "starts_on", "ends_on"}}
	for wk := 1; wk <= weeks; wk++ {
		start := firstWeek.AddDate(0, 0, 7*(wk-1))
		ws.rows = append(ws.rows, row(wk, date(start), date(start.AddDate(0, 0, 6))))
	}

	type play struct {
		id, user, week, score int
		at                    time.Time
	}
	var plays []play
	for wk := 1; wk <= weeks; wk++ {
		start := firstWeek.AddDate(0, 0, 7*(wk-1))
		for u := 1; u <= users; u++ {
			if r.IntN(100) < 35 {
				continue // did not play this week
			}
			for range 1 + r.IntN(5) {
				score := min(max(skill[u]+r.IntN(40001)-20000, 0), 99998)
				at := start.Add(time.Duration(r.IntN(7*24*3600)) * time.Second)
				plays = append(plays, play{len(plays) + 1, u, wk, score, at})
			}
		}
	}

	// Ties on purpose, for verify's tie rule: in the article's week (week 5)
	// the 11th best player's best play scores as much as the 10th's, so the
	// LIMIT 10 cuts through a tie; in week 6 the two best players tie.
	best := func(wk int) []int { // indexes into plays of each player's best play, best first
		top := map[int]int{}
		for i, p := range plays {
			if j, ok := top[p.user]; p.week == wk && (!ok || p.score > plays[j].score) {
				top[p.user] = i
			}
		}
		var out []int
		for _, i := range top {
			out = append(out, i)
		}
		slices.SortFunc(out, func(a, b int) int {
			return cmp.Or(cmp.Compare(plays[b].score, plays[a].score), cmp.Compare(plays[a].user, plays[b].user))
		})
		return out
	}
	w5 := best(5)
	plays[w5[10]].score = plays[w5[9]].score
	w6 := best(6)
	plays[w6[1]].score = plays[w6[0]].score

	ps := table{name: "plays", cols: []string{"play_id", "user_id", "week_id", "score", "played_at"}}
	for _, p := range plays {
		ps.rows = append(ps.rows, row(p.id, p.user, p.week, p.score, ts(p.at)))
	}
	return []table{us, fs, ws, ps}
}

func write(w *bufio.Writer, tbls []table) error {
	fmt.Fprintf(w, "-- Data of the leaderboard example. Generated by\n--   go run ./examples/leaderboard/gen\n-- Do not edit: change gen/main.go and regenerate.\n--\n-- Rows:")
	for _, t := range tbls {
		fmt.Fprintf(w, " %s %d", t.name, len(t.rows))
	}
	fmt.Fprintf(w, "\n--\n-- The script is UTF-8 and its timestamps are UTC; the next two statements\n"+
		"-- tell both engines so (see examples/board/gen for how they work).\n")
	for _, s := range session {
		fmt.Fprintln(w, s)
	}
	for _, t := range tbls {
		for start := 0; start < len(t.rows); start += maxRowsPerInsert {
			end := min(start+maxRowsPerInsert, len(t.rows))
			fmt.Fprintf(w, "\nINSERT INTO %s (%s) VALUES\n", t.name, strings.Join(t.cols, ", "))
			for i, r := range t.rows[start:end] {
				sep := ","
				if start+i == end-1 {
					sep = ";"
				}
				fmt.Fprintf(w, "(%s)%s\n", strings.Join(r, ", "), sep)
			}
		}
	}
	return nil
}
