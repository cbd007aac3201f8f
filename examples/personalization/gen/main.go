// Command gen prints the data of the personalization example as one SQL
// script that loads unchanged into PostgreSQL and into MySQL/MariaDB, after
// schema.postgres.sql or schema.mysql.sql.
//
//	go run ./examples/personalization/gen > examples/personalization/data.sql
//	go run ./examples/personalization/gen -scale 10 > /tmp/personalization-x10.sql
//
// The output is deterministic: a fixed seed, fixed lists, no clock. -scale N
// multiplies the number of users, personal settings, subscribable contents and
// subscriptions; the six services stay the same.
//
// What the script relies on, so that one file serves both engines:
//   - multi-row INSERT statements of at most 500 rows each, in foreign-key order;
//   - string literals in single quotes with quotes doubled and no backslash
//     anywhere (MySQL reads a backslash as an escape character);
//   - no semicolon except the one ending each statement, so even a naive
//     splitter finds the statements;
//   - booleans as TRUE/FALSE;
//   - timestamps as 'YYYY-MM-DD HH:MM:SS' literals in UTC, read as UTC because
//     the first statements set the session's encoding (UTF-8) and time zone
//     (UTC) in both engines (see sessionBoth).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/examples/internal/sqlscript"
)

// Seeds of the PCG generator. Change them and data.sql changes.
const seed1, seed2 = 20240917, 0x7065727a

// maxRowsPerInsert bounds the rows of one INSERT statement.
const maxRowsPerInsert = sqlscript.MaxRowsPerInsert

func main() {
	scale := flag.Int("scale", 1, "multiply the row counts by `N` (N >= 1)")
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
	d, err := generate(scale)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(out)
	if err := write(w, d, scale, engine); err != nil {
		return err
	}
	return w.Flush()
}

// ---------------------------------------------------------------------------
// Data model

type user struct {
	id       int64
	email    string
	name     string
	active   bool
	created  time.Time
	settings []personal
	subs     []subscribeUser
}

type service struct {
	name, display string
	created       time.Time
}

type personal struct {
	userID       int64
	service      string
	settingType  string
	settingsJSON string
	updated      time.Time
}

type subscribe struct {
	service     string
	contentType string
	originID    int64
	title       string
	created     time.Time
}

type subscribeUser struct {
	userID      int64
	service     string
	contentType string
	originID    int64
	subscribed  time.Time
}

type dataset struct {
	users      []*user
	services   []service
	subscribes []subscribe
}

// ---------------------------------------------------------------------------
// Fixed lists

var (
	tsMin = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	tsMax = time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC)
	// Users sign up before this, so that later events have room.
	signupMax = time.Date(2025, 6, 30, 23, 59, 59, 0, time.UTC)
)

// services: "news" is a string prefix of "newsletter" on purpose.
var services = []service{
	{"news", "Today's News", tsMin},
	{"newsletter", "Newsletter", time.Date(2023, 1, 3, 9, 30, 0, 0, time.UTC)},
	{"mail", "Mail", time.Date(2023, 1, 5, 12, 0, 0, 0, time.UTC)},
	{"blog", "Blogs & Cafés", time.Date(2023, 1, 9, 8, 15, 30, 0, time.UTC)},
	{"shop", "Shopping", time.Date(2023, 1, 16, 23, 59, 59, 0, time.UTC)},
	{"weather", "날씨 Weather", time.Date(2023, 1, 31, 6, 0, 0, 0, time.UTC)},
}

// serviceWeight makes news and newsletter the busiest services, so that most
// users who have one also have the other.
var serviceWeight = map[string]int{"news": 4, "newsletter": 4, "mail": 2, "blog": 1, "shop": 1, "weather": 2}

// settingPairs are the (service, setting_type) pairs a user can have.
// "alerts" is a string prefix of "alerts_email" on purpose.
var settingPairs = []struct {
	service, settingType string
	weight               int
}{
	{"news", "theme", 3}, {"news", "layout", 3}, {"news", "alerts", 4}, {"news", "alerts_email", 3},
	{"newsletter", "alerts", 4}, {"newsletter", "alerts_email", 4}, {"newsletter", "layout", 2},
	{"mail", "theme", 2}, {"mail", "alerts", 2}, {"mail", "alerts_email", 1},
	{"blog", "theme", 1}, {"blog", "layout", 1},
	{"shop", "alerts", 1},
	{"weather", "layout", 1}, {"weather", "alerts", 2},
}

// contentTypes: "video" is a string prefix of "video_live" on purpose.
var contentTypes = []string{"article", "video", "video_live", "podcast", "photo"}

type nameParts struct{ display, slug string }

var firstNames = []nameParts{
	{"Siobhán", "siobhan"}, {"Zoë", "zoe"}, {"José", "jose"}, {"Renée", "renee"},
	{"Łukasz", "lukasz"}, {"Björn", "bjorn"}, {"Chloé", "chloe"}, {"Ana", "ana"},
	{"James", "james"}, {"Mei", "mei"}, {"Aarav", "aarav"}, {"Olivia", "olivia"},
	{"Hiroshi", "hiroshi"}, {"Fatima", "fatima"}, {"Noah", "noah"}, {"Ingrid", "ingrid"},
}

var lastNames = []nameParts{
	{"O'Brien", "obrien"}, {"Müller", "muller"}, {"Núñez", "nunez"}, {"Dvořák", "dvorak"},
	{"D'Angelo", "dangelo"}, {"Çelik", "celik"}, {"Søndergaard", "sondergaard"},
	{"Smith", "smith"}, {"Nakamura", "nakamura"}, {"Park", "park"}, {"Wang", "wang"},
	{"Okafor", "okafor"}, {"García", "garcia"}, {"Lefèvre", "lefevre"},
}

// koreanNames are whole names (family name first, no space).
var koreanNames = []nameParts{
	{"김서연", "kim.seoyeon"}, {"이민준", "lee.minjun"}, {"박지호", "park.jiho"},
	{"최하은", "choi.haeun"}, {"정우진", "jung.woojin"}, {"강예린", "kang.yerin"},
	{"조현우", "cho.hyunwoo"}, {"윤서아", "yoon.seoa"},
}

var domains = []string{"example.com", "example.net", "example.org"}

var topics = []string{
	"Seoul after dark", "Café culture", "Müller's market report", "O'Brien on AI",
	"서울 맛집 가이드", "K-pop weekly", "Zoë's garden", "São Paulo street food",
	"Jeju in spring", "Crème brûlée at home", "Today's headlines", "Reykjavík nights",
	"안녕하세요 Korean 101", "The chef's table", "Tokyo rush hour", "Kraków old town",
}

var greetings = []string{
	"안녕하세요", "Bienvenue au café", "Good morning", "¡Hola!", "Grüß Gott",
	"Don't miss today's news", "こんにちは", "Hej då 🌤",
}

var keywords = []string{
	"café", "날씨", "K-pop", "O'Brien's picks", "election", "football", "crème brûlée",
	"서울", "stocks", "rain 🌧", "jazz", "naïve bayes",
}

// bigNumber must survive every hop exactly; it is not representable as a
// float64 (the nearest one is 12345678901234568).
const bigNumber int64 = 12345678901234567

// ---------------------------------------------------------------------------
// Generation

type rnd struct{ src *rand.PCG }

// intn returns a number in [0, n). It uses the PCG source directly so that
// the output depends only on the PCG algorithm, not on how a Go release
// implements rand.Rand's helpers.
func (r rnd) intn(n int) int {
	if n <= 0 {
		panic("intn: n <= 0")
	}
	// Rejection sampling: no modulo bias.
	limit := ^uint64(0) - ^uint64(0)%uint64(n)
	for {
		v := r.src.Uint64()
		if v < limit {
			return int(v % uint64(n))
		}
	}
}

func (r rnd) chance(pct int) bool { return r.intn(100) < pct }

func pick[T any](r rnd, xs []T) T { return xs[r.intn(len(xs))] }

// between returns a whole-second UTC time in [lo, hi].
func (r rnd) between(lo, hi time.Time) time.Time {
	span := int(hi.Sub(lo) / time.Second)
	return lo.Add(time.Duration(r.intn(span+1)) * time.Second)
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// generate draws the whole dataset from one PCG source. Every part below
// draws from r in turn, so the order of the calls here is the order of the
// draws, and data.sql depends on it: users, then each user's settings, then
// the subscribable contents, then each user's subscriptions.
func generate(scale int) (*dataset, error) {
	r := rnd{rand.NewPCG(seed1, seed2)}
	d := &dataset{services: services}
	servicesByName := map[string]service{}
	for _, s := range services {
		servicesByName[s.name] = s
	}
	d.users = genUsers(r, 1000*scale)
	total := settingWeightTotal()
	for _, u := range d.users {
		if err := genSettings(r, u, total, servicesByName); err != nil {
			return nil, err
		}
	}
	bySvc := genSubscribes(r, d, scale)
	svcTotal := serviceWeightTotal()
	for _, u := range d.users {
		genSubscriptions(r, u, svcTotal, d.subscribes, bySvc)
	}
	return d, nil
}

// genUsers makes users 1..n.
func genUsers(r rnd, n int) []*user {
	var users []*user
	for i := 1; i <= n; i++ {
		users = append(users, newUser(r, i))
	}
	return users
}

// newUser makes user i: its name, then its email's domain, its active flag
// and its sign-up time, drawn in that order.
func newUser(r rnd, i int) *user {
	n := userName(r, i)
	u := &user{
		id:      int64(i),
		name:    n.display,
		email:   fmt.Sprintf("%s.%d@%s", n.slug, i, pick(r, domains)),
		active:  i <= 2 || !r.chance(10),
		created: r.between(tsMin, signupMax),
	}
	if i == 1 {
		u.created = tsMin // the lower bound of the range appears in the data
	}
	return u
}

// userName is user i's name: fixed for the two known users, else a Korean
// name one time in five or a first and a last name.
func userName(r rnd, i int) nameParts {
	switch {
	case i == 1: // a known user with an apostrophe and an accent, see README.md
		return nameParts{"Siobhán O'Brien", "siobhan.obrien"}
	case i == 2:
		return koreanNames[0]
	case r.chance(20):
		return pick(r, koreanNames)
	default:
		f, l := pick(r, firstNames), pick(r, lastNames)
		return nameParts{f.display + " " + l.display, f.slug + "." + l.slug}
	}
}

// settingWeightTotal is the sum of the weights of settingPairs.
func settingWeightTotal() int {
	total := 0
	for _, p := range settingPairs {
		total += p.weight
	}
	return total
}

// genSettings gives u 1-5 distinct (service, setting_type) pairs, in the
// order of service and setting type. total is settingWeightTotal().
func genSettings(r rnd, u *user, total int, servicesByName map[string]service) error {
	chosen := chooseSettingPairs(r, u.id, total)
	for j := range settingPairs { // in list order: deterministic
		if !chosen[j] {
			continue
		}
		p := settingPairs[j]
		js, err := settingsJSON(r, u, p.service, p.settingType)
		if err != nil {
			return err
		}
		updated := r.between(latest(u.created, servicesByName[p.service].created), tsMax)
		if u.id == 1 && p.settingType == "alerts_email" && p.service == "newsletter" {
			updated = tsMax // the upper bound of the range appears in the data
		}
		u.settings = append(u.settings, personal{u.id, p.service, p.settingType, js, updated})
	}
	slices.SortFunc(u.settings, func(a, b personal) int {
		return strings.Compare(a.service+"\x00"+a.settingType, b.service+"\x00"+b.settingType)
	})
	return nil
}

// chooseSettingPairs picks the indexes into settingPairs of a user's
// settings, by weight. The count is drawn for every user, the known users'
// included, who then get both sides of every prefix pair.
func chooseSettingPairs(r rnd, userID int64, total int) map[int]bool {
	k := 1 + r.intn(5)
	chosen := map[int]bool{}
	switch userID {
	case 1, 2: // both sides of every prefix pair for the known users
		k = 5
		for j, p := range settingPairs {
			if (p.service == "news" || p.service == "newsletter") && p.settingType != "layout" {
				chosen[j] = true
			}
		}
	}
	for len(chosen) < k {
		w := r.intn(total)
		for j, p := range settingPairs {
			if w < p.weight {
				chosen[j] = true
				break
			}
			w -= p.weight
		}
	}
	return chosen
}

// genSubscribes appends to d.subscribes 5-15 contents per (service,
// content_type) at scale 1, and returns, per service, the indexes of its
// contents in d.subscribes.
func genSubscribes(r rnd, d *dataset, scale int) map[string][]int {
	bySvc := map[string][]int{} // service -> indexes into d.subscribes
	for _, s := range services {
		for _, ct := range contentTypes {
			ids := originIDs(r, scale*(5+r.intn(11)))
			for _, id := range ids {
				bySvc[s.name] = append(bySvc[s.name], len(d.subscribes))
				d.subscribes = append(d.subscribes, subscribe{
					service:     s.name,
					contentType: ct,
					originID:    id,
					title:       title(r, ct, id),
					created:     r.between(s.created, signupMax),
				})
			}
		}
	}
	return bySvc
}

// originIDs draws n distinct origin ids and returns them sorted.
func originIDs(r rnd, n int) []int64 {
	seen := map[int64]bool{}
	var ids []int64
	for len(ids) < n {
		// Between 1 and 8 digits, so that the ids do not sort the
		// same way as numbers and as strings.
		digits := 1 + r.intn(8)
		hi := 1
		for range digits {
			hi *= 10
		}
		id := int64(1 + r.intn(hi-1))
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// serviceWeightTotal is the sum of serviceWeight over services.
func serviceWeightTotal() int {
	var svcTotal int
	for _, s := range services {
		svcTotal += serviceWeight[s.name]
	}
	return svcTotal
}

// genSubscriptions gives u 0-5 subscriptions to contents of subscribes
// (bySvc indexes them by service), in the order the contents were generated.
func genSubscriptions(r rnd, u *user, svcTotal int, subscribes []subscribe, bySvc map[string][]int) {
	order := chooseSubscriptions(r, u.id, svcTotal, bySvc)
	slices.Sort(order) // in the order the contents were generated
	for _, idx := range order {
		s := subscribes[idx]
		u.subs = append(u.subs, subscribeUser{
			userID:      u.id,
			service:     s.service,
			contentType: s.contentType,
			originID:    s.originID,
			subscribed:  r.between(latest(u.created, s.created), tsMax),
		})
	}
}

// chooseSubscriptions picks the distinct indexes of a user's subscribed
// contents: a service by weight, then one of its contents. The two known
// users get five, the first two of them a news and a newsletter content.
func chooseSubscriptions(r rnd, userID int64, svcTotal int, bySvc map[string][]int) []int {
	k := r.intn(6)
	if userID <= 2 {
		k = 5
	}
	chosen := map[int]bool{}
	var order []int
	for len(order) < k {
		svc := pickService(r, svcTotal)
		if userID <= 2 && len(order) < 2 { // one news and one newsletter subscription
			svc = []string{"news", "newsletter"}[len(order)]
		}
		idx := pick(r, bySvc[svc])
		if !chosen[idx] {
			chosen[idx] = true
			order = append(order, idx)
		}
	}
	return order
}

// pickService draws a service name by serviceWeight; svcTotal is
// serviceWeightTotal().
func pickService(r rnd, svcTotal int) string {
	w := r.intn(svcTotal)
	for _, s := range services {
		if w < serviceWeight[s.name] {
			return s.name
		}
		w -= serviceWeight[s.name]
	}
	return ""
}

func title(r rnd, contentType string, id int64) string {
	t := pick(r, topics)
	switch contentType {
	case "article":
		return fmt.Sprintf("%s — part %d", t, 1+id%9)
	case "video":
		return "Video: " + t
	case "video_live":
		return "LIVE 🔴 " + t
	case "podcast":
		return fmt.Sprintf("Podcast · %s, ep. %d", t, 1+id%120)
	default:
		return "Photos: " + t
	}
}

// ---------------------------------------------------------------------------
// settings JSON. Structs keep the key order fixed; pointers give JSON null.

type widget struct {
	ID        string         `json:"id"`
	Position  int            `json:"position"`
	Collapsed bool           `json:"collapsed"`
	Options   map[string]any `json:"options"`
}

type themeSettings struct {
	Mode         string  `json:"mode"`
	Accent       string  `json:"accent"`
	FontScale    float64 `json:"font_scale"`
	HighContrast bool    `json:"high_contrast"`
	Wallpaper    *string `json:"wallpaper"`
}

type layoutSettings struct {
	Columns  int      `json:"columns"`
	Density  float64  `json:"density"`
	Locale   string   `json:"locale"`
	Greeting string   `json:"greeting"`
	Widgets  []widget `json:"widgets"`
	Pinned   []int64  `json:"pinned"`
}

type quietHours struct {
	Start            string `json:"start"`
	End              string `json:"end"`
	UTCOffsetMinutes int    `json:"utc_offset_minutes"`
}

type alertSettings struct {
	Enabled     bool       `json:"enabled"`
	Channels    []string   `json:"channels"`
	QuietHours  quietHours `json:"quiet_hours"`
	Keywords    []string   `json:"keywords"`
	Threshold   float64    `json:"threshold"`
	MaxPerDay   int        `json:"max_per_day"`
	LastAlertID int64      `json:"last_alert_id"`
}

type emailFilters struct {
	MinScore  float64  `json:"min_score"`
	Languages []string `json:"languages"`
}

type alertEmailSettings struct {
	Enabled       bool         `json:"enabled"`
	Address       string       `json:"address"`
	Digest        string       `json:"digest"`
	SendHour      int          `json:"send_hour"`
	Signature     *string      `json:"signature"`
	LastMessageID int64        `json:"last_message_id"`
	Filters       emailFilters `json:"filters"`
}

var (
	modes     = []string{"light", "dark", "system"}
	accents   = []string{"#1e90ff", "#ff6347", "#2e8b57", "#8a2be2", "#ffa500"}
	scales    = []float64{0.75, 1, 1.25, 1.5}
	densities = []float64{0.5, 0.75, 1, 1.25}
	locales   = []string{"ko-KR", "en-US", "fr-FR", "de-DE", "ja-JP", "pt-BR"}
	widgetIDs = []string{"weather", "headlines", "mail", "stocks", "calendar", "shop_deals"}
	channels  = []string{"push", "sms", "email", "kakao"}
	digests   = []string{"daily", "weekly", "off"}
	languages = []string{"ko", "en", "fr", "de", "ja"}
	offsets   = []int{540, 0, -300, 60, -180, 330}
)

// bigID returns bigNumber or another integer above 2^53 (so not exact as a
// float64) and below 2^63.
func bigID(r rnd) int64 {
	if r.chance(30) {
		return bigNumber
	}
	// Odd and above 2^53: never exact as a float64. Below 2^53 + 2^62 < 2^63.
	return (1<<53 + int64(r.src.Uint64()>>2)) | 1
}

func someOf(r rnd, xs []string, min int) []string {
	n := min + r.intn(len(xs)-min+1)
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	for i := len(idx) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		idx[i], idx[j] = idx[j], idx[i]
	}
	out := []string{} // empty array, not null
	for _, i := range idx[:n] {
		out = append(out, xs[i])
	}
	return out
}

func settingsJSON(r rnd, u *user, svc, settingType string) (string, error) {
	var v any
	switch settingType {
	case "theme":
		s := themeSettings{
			Mode:         pick(r, modes),
			Accent:       pick(r, accents),
			FontScale:    pick(r, scales),
			HighContrast: r.chance(15),
		}
		if r.chance(40) {
			wp := fmt.Sprintf("https://img.example.com/%s/wallpaper-%d.jpg", svc, 1+r.intn(40))
			s.Wallpaper = &wp
		}
		v = s
	case "layout":
		s := layoutSettings{
			Columns:  1 + r.intn(4),
			Density:  pick(r, densities),
			Locale:   pick(r, locales),
			Greeting: pick(r, greetings),
			Widgets:  []widget{},
			Pinned:   []int64{},
		}
		for i, id := range someOf(r, widgetIDs, 0) {
			w := widget{ID: id, Position: i + 1, Collapsed: r.chance(25), Options: map[string]any{}}
			switch id {
			case "weather":
				w.Options["unit"] = pick(r, []string{"C", "F"})
				w.Options["city"] = pick(r, []string{"서울", "Zürich", "São Paulo", "Montréal"})
			case "stocks":
				w.Options["symbols"] = someOf(r, []string{"AAPL", "005930.KS", "MSFT", "SAP.DE"}, 1)
			}
			s.Widgets = append(s.Widgets, w)
		}
		for range r.intn(4) {
			s.Pinned = append(s.Pinned, int64(1+r.intn(99999999)))
		}
		v = s
	case "alerts":
		kw := someOf(r, keywords, 1)
		kw = kw[:min(len(kw), 1+r.intn(3))]
		v = alertSettings{
			Enabled:  !r.chance(10),
			Channels: someOf(r, channels, 0),
			QuietHours: quietHours{
				Start:            fmt.Sprintf("%02d:00", 20+r.intn(4)),
				End:              fmt.Sprintf("%02d:30", 5+r.intn(4)),
				UTCOffsetMinutes: pick(r, offsets),
			},
			Keywords:    kw,
			Threshold:   pick(r, []float64{0.5, 0.25, 0.75, 1.25}),
			MaxPerDay:   r.intn(51),
			LastAlertID: bigID(r),
		}
	case "alerts_email":
		s := alertEmailSettings{
			Enabled:       !r.chance(20),
			Address:       u.email,
			Digest:        pick(r, digests),
			SendHour:      r.intn(24),
			LastMessageID: bigID(r),
			Filters: emailFilters{
				MinScore:  pick(r, []float64{0.5, 1.25, 2, 3.75}),
				Languages: someOf(r, languages, 1),
			},
		}
		if r.chance(50) {
			sig := "— " + u.name
			s.Signature = &sig
		}
		v = s
	default:
		return "", fmt.Errorf("no settings generator for setting type %q", settingType)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encoding %s/%s settings of user %d: %w", svc, settingType, u.id, err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// ---------------------------------------------------------------------------
// SQL output

// Column values that need their own SQL rendering, and the tables.
type (
	jsonText = sqlscript.JSON
	ts       = sqlscript.TS
	table    = sqlscript.Table
)

func literal(v any) (string, error) { return sqlscript.Literal(v) }

func tables(d *dataset) []table {
	users := table{Name: "users", Cols: []string{"user_id", "email", "name", "is_active", "created_at"}}
	svcs := table{Name: "services", Cols: []string{"service", "display_name", "created_at"}}
	pers := table{Name: "personal", Cols: []string{"user_id", "service", "setting_type", "settings", "updated_at"}}
	subs := table{Name: "subscribe", Cols: []string{"service", "content_type", "content_origin_id", "title", "created_at"}}
	subu := table{Name: "subscribe_user", Cols: []string{"user_id", "service", "content_type", "content_origin_id", "subscribed_at"}}
	for _, u := range d.users {
		users.Rows = append(users.Rows, []any{u.id, u.email, u.name, u.active, ts(u.created)})
		for _, p := range u.settings {
			pers.Rows = append(pers.Rows, []any{p.userID, p.service, p.settingType, jsonText(p.settingsJSON), ts(p.updated)})
		}
		for _, s := range u.subs {
			subu.Rows = append(subu.Rows, []any{s.userID, s.service, s.contentType, s.originID, ts(s.subscribed)})
		}
	}
	for _, s := range d.services {
		svcs.Rows = append(svcs.Rows, []any{s.name, s.display, ts(s.created)})
	}
	for _, s := range d.subscribes {
		subs.Rows = append(subs.Rows, []any{s.service, s.contentType, s.originID, s.title, ts(s.created)})
	}
	// Foreign-key order.
	return []table{users, svcs, pers, subs, subu}
}

func write(w *bufio.Writer, d *dataset, scale int, engine string) error {
	tbls := tables(d)
	cmd := "go run ./examples/personalization/gen"
	if scale != 1 {
		cmd += " -scale " + strconv.Itoa(scale)
	}
	if engine != "" {
		cmd += " -engine " + engine
	}
	return sqlscript.Write(w, "personalization", cmd, engine, tbls)
}
