// Command gen prints the data of the game-profile example as one SQL script
// that loads unchanged into PostgreSQL and into MySQL/MariaDB, after
// schema.postgres.sql or schema.mysql.sql.
//
//	go run ./examples/game-profile/gen > examples/game-profile/data.sql
//	go run ./examples/game-profile/gen -scale 10 > /tmp/game-profile-x10.sql
//
// The output is deterministic: a fixed seed, fixed lists, no clock. -scale N
// multiplies the users (with their accounts, servers and sessions); the back
// office stays the same.
//
// The data is shaped to test the design of README.md:
//   - most users have one to three accounts, some none;
//   - most users first connected to one to four servers (embedded in the
//     user's item, oldest first), some to none (no servers attribute);
//   - sessions were created over the 60 days before 2026-01-01, so with the
//     30-day TTL about half of them are already expired at that date;
//   - the back office is a tree: one head (no manager), managers, staff;
//     every service has a manager, and some managers have people and
//     services both, so "by manager" returns two entities at once;
//   - some people have no home number (NULL: no attribute).
//
// Timestamps are whole-second UTC literals read as UTC, as in the other
// examples (examples/internal/sqlscript).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/remodel-dev/remodel/examples/internal/sqlscript"
)

// Seeds of the PCG generator. Change them and data.sql changes.
const seed1, seed2 = 20200315, 0x67616d65

// usersPerScale is the number of users at scale 1.
const usersPerScale = 800

// The back office's size.
const (
	employees = 120
	managers  = 12 // EMP00002 .. EMP00013 report to the head, EMP00001
	services  = 40
)

func main() {
	scale := flag.Int("scale", 1, "multiply the number of users, accounts, servers and sessions by `N` (N >= 1)")
	engine := flag.String("engine", "", "write the session statements for `ENGINE` only: postgres or mysql (default: one script for both)")
	flag.Parse()
	if err := run(os.Stdout, *scale, *engine); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
}

func run(out io.Writer, scale int, engine string) error {
	if err := sqlscript.CheckFlags(scale, engine); err != nil {
		return err
	}
	cmd := "go run ./examples/game-profile/gen"
	if scale != 1 {
		cmd += " -scale " + strconv.Itoa(scale)
	}
	if engine != "" {
		cmd += " -engine " + engine
	}
	w := bufio.NewWriter(out)
	if err := sqlscript.Write(w, "game-profile", cmd, engine, generate(scale)); err != nil {
		return err
	}
	return w.Flush()
}

type ts = sqlscript.TS

var (
	// Users sign up in 2023 to 2025; the data is as of 2026-01-01.
	signupMin = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	asOf      = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	regions = []string{"SEOUL", "SEOUL", "SEOUL", "TOKYO", "TOKYO", "SINGAPORE", "OREGON"}
	given   = []string{"Hank", "Iguana", "Lily", "Minji", "Seojun", "Jiwoo", "Haruto", "Yuna", "Doyun", "Sora", "Ethan", "Mia"}
	family  = []string{"Kim", "Lee", "Park", "Choi", "Jung", "Kang", "Cho", "Yoon", "Tanaka", "Sato", "Smith", "Lim"}
	cities  = []string{"Seoul", "Busan", "Incheon", "Daegu", "Gwangju", "Tokyo", "Osaka"}
	streets = []string{"Teheran-ro", "Sejong-daero", "Gangnam-daero", "Haeundae-ro", "Omotesando", "Olympic-ro"}
	hosts   = []string{"billing", "support", "events", "shop", "guild", "ranking", "mail", "auth"}
)

type rnd struct{ *rand.Rand }

func (r rnd) between(lo, hi time.Time) time.Time {
	return lo.Add(time.Duration(r.Int64N(int64(hi.Sub(lo)/time.Second))) * time.Second)
}

func (r rnd) digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

func (r rnd) phone() string { return "010" + r.digits(8) }

func (r rnd) addr() string {
	return fmt.Sprintf("%d %s, %s", 1+r.IntN(400), streets[r.IntN(len(streets))], cities[r.IntN(len(cities))])
}

// servers are the game's servers: a lobby and worlds, by region.
var servers = func() [][2]string {
	var out [][2]string
	for i := 1; i <= 12; i++ {
		kind := "WORLD"
		if i%4 == 1 {
			kind = "LOBBY"
		}
		out = append(out, [2]string{fmt.Sprintf("SRV_%03d_%s", i, kind), regions[(i-1)%len(regions)]})
	}
	return out
}()

func generate(scale int) []sqlscript.Table {
	r := rnd{rand.New(rand.NewPCG(seed1, seed2))}
	users := sqlscript.Table{Name: "users", Cols: []string{"user_id", "name", "tel", "addr", "pwd_hash", "valid", "created_at"}}
	accounts := sqlscript.Table{Name: "accounts", Cols: []string{"acc_id", "user_id", "balance", "opened_at"}}
	userServers := sqlscript.Table{Name: "user_servers", Cols: []string{"user_id", "srv_id", "region", "first_at"}}
	sessions := sqlscript.Table{Name: "login_sessions", Cols: []string{"session_id", "user_id", "client_ip", "created_at"}}
	acc := 0
	for u := 1; u <= usersPerScale*scale; u++ {
		id := fmt.Sprintf("USER%06d", u)
		created := r.between(signupMin, asOf.AddDate(0, -2, 0))
		name := given[r.IntN(len(given))] + " " + family[r.IntN(len(family))]
		users.Rows = append(users.Rows, []any{id, name, r.phone(), r.addr(), fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64()), r.IntN(20) != 0, ts(created)})
		for range []int{0, 1, 1, 1, 2, 2, 3}[r.IntN(7)] {
			acc++
			accounts.Rows = append(accounts.Rows, []any{fmt.Sprintf("%02d-%03d-%06d", 1+r.IntN(9), 100+r.IntN(900), acc), id,
				int64(r.IntN(100) * 10000), ts(r.between(created, asOf))})
		}
		// The servers a user first connected to, each once; the first
		// soon after signing up.
		at := created
		for _, s := range r.Perm(len(servers))[:[]int{0, 1, 2, 2, 3, 4}[r.IntN(6)]] {
			at = at.Add(time.Duration(1+r.IntN(72*3600)) * time.Second)
			userServers.Rows = append(userServers.Rows, []any{id, servers[s][0], servers[s][1], ts(at)})
		}
		for range r.IntN(5) {
			sessions.Rows = append(sessions.Rows, []any{fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64()), id,
				fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), 1+r.IntN(254)), ts(r.between(asOf.AddDate(0, 0, -60), asOf))})
		}
	}

	work := sqlscript.Table{Name: "internal_workforce", Cols: []string{"employee_id", "mob_tel_no", "resid_id", "addr", "work_tel_no", "home_tel_no", "manager_id"}}
	for e := 1; e <= employees; e++ {
		var mgr any // the head has none
		switch {
		case e == 1:
		case e <= 1+managers:
			mgr = "EMP00001"
		default:
			mgr = fmt.Sprintf("EMP%05d", 2+r.IntN(managers))
		}
		var home any
		if r.IntN(4) != 0 {
			home = "02" + r.digits(8)
		}
		resid := fmt.Sprintf("%02d%02d%02d%d%s", 60+r.IntN(40), 1+r.IntN(12), 1+r.IntN(28), 1+r.IntN(4), r.digits(6))
		work.Rows = append(work.Rows, []any{fmt.Sprintf("EMP%05d", e), r.phone(), resid, r.addr(), "02" + r.digits(8), home, mgr})
	}
	svc := sqlscript.Table{Name: "internal_services", Cols: []string{"service_id", "manager_id", "repr_tel_no", "entry_point", "create_dt", "modified_dt"}}
	for s := 1; s <= services; s++ {
		created := r.between(time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC), signupMin)
		svc.Rows = append(svc.Rows, []any{fmt.Sprintf("SVC%04d", s), fmt.Sprintf("EMP%05d", 1+r.IntN(1+managers)), "1588" + r.digits(4),
			fmt.Sprintf("https://%s.game.example/%d", hosts[s%len(hosts)], s), ts(created), ts(r.between(created, asOf))})
	}
	return []sqlscript.Table{users, accounts, userServers, sessions, work, svc}
}
