// Command gen prints the data of the board example as one SQL script that
// loads unchanged into PostgreSQL and into MySQL/MariaDB, after
// schema.postgres.sql or schema.mysql.sql.
//
//	go run ./examples/board/gen > examples/board/data.sql
//	go run ./examples/board/gen -scale 10 > /tmp/board-x10.sql
//
// The output is deterministic: a fixed seed, fixed lists, no clock. -scale N
// multiplies the number of users (with their e-mails, posts and tags on
// posts); the categories and tags stay the same.
//
// The data is shaped to test the key design of README.md:
//   - every user has one e-mail (1:1), whose id is not the user's id;
//   - posts are questions and answers, drafts and published, most with a
//     category and some without (category_id NULL);
//   - most tags are put on a post in the second the post is written, so one
//     post's tag relations share their created_at;
//   - some users imported posts in one batch: two posts of the same user, kind,
//     state and category with the same created_at and the same tags. With the
//     article's sort keys alone (createdAt, DRAFT:createdAt) these rows render
//     the same key; README.md says why the example's keys end with the id.
//
// What the script relies on, so that one file serves both engines:
//   - multi-row INSERT statements of at most 500 rows each, in foreign-key order;
//   - string literals in single quotes with quotes doubled and no backslash
//     anywhere (MySQL reads a backslash as an escape character);
//   - no semicolon except the one ending each statement;
//   - NULL for a missing category;
//   - timestamps as 'YYYY-MM-DD HH:MM:SS' literals in UTC, read as UTC because
//     the first statements set the session's encoding (UTF-8) and time zone
//     (UTC) in both engines (see sessionBoth).
package main

import (
	"bufio"
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
const seed1, seed2 = 20200607, 0x626f617264

// maxRowsPerInsert bounds the rows of one INSERT statement.
const maxRowsPerInsert = sqlscript.MaxRowsPerInsert

// usersPerScale is the number of users (and e-mails) at scale 1.
const usersPerScale = 400

func main() {
	scale := flag.Int("scale", 1, "multiply the number of users, e-mails, posts and tags on posts by `N` (N >= 1)")
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
	d := generate(scale)
	w := bufio.NewWriter(out)
	if err := write(w, d, scale, engine); err != nil {
		return err
	}
	return w.Flush()
}

// ---------------------------------------------------------------------------
// Data model

type email struct {
	id                int64
	localPart, domain string
}

type user struct {
	id             int64
	emailID        int64
	nickname       string
	hashedPassword string
	created        time.Time
}

type category struct {
	id      int64
	name    string
	created time.Time
}

type post struct {
	id         int64
	userID     int64
	categoryID int64 // 0: no category (NULL)
	kind       string
	state      string
	title      string
	body       string
	created    time.Time
	tags       []postTag
	batch      bool // imported with another post of the same key, see package doc
}

type tag struct {
	id      int64
	name    string
	created time.Time
}

type postTag struct {
	postID, tagID int64
	created       time.Time
}

type dataset struct {
	emails     []email
	users      []*user
	categories []category
	posts      []*post
	tags       []tag
}

// ---------------------------------------------------------------------------
// Fixed lists

var (
	tsMin = time.Date(2022, 6, 1, 0, 0, 0, 0, time.UTC)
	tsMax = time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC)
	// The board opens here: users sign up after it, categories and tags
	// exist before it.
	opening = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	// Users sign up before this, so that their posts have room.
	signupMax = time.Date(2025, 6, 30, 23, 59, 59, 0, time.UTC)
)

var categoryNames = []string{
	"공지사항", "질문과 답변", "자유게시판", "DynamoDB", "PostgreSQL", "MySQL & MariaDB", "Go", "Café ☕",
}

var tagNames = []string{
	"dynamodb", "nosql", "single-table", "gsi", "lsi", "partition-key", "sort-key",
	"postgresql", "mysql", "mariadb", "sql", "go", "aws", "serverless", "modeling",
	"데이터베이스", "인덱스", "성능", "비용", "마이그레이션", "설계", "초보",
	"erd", "access-pattern", "ttl", "streams", "backup", "json", "café", "🔥",
}

type nameParts struct{ display, slug string }

var firstNames = []nameParts{
	{"Siobhán", "siobhan"}, {"Zoë", "zoe"}, {"José", "jose"}, {"Renée", "renee"},
	{"Łukasz", "lukasz"}, {"Björn", "bjorn"}, {"Chloé", "chloe"}, {"Ana", "ana"},
	{"James", "james"}, {"Mei", "mei"}, {"Aarav", "aarav"}, {"Olivia", "olivia"},
}

var lastNames = []nameParts{
	{"O'Brien", "obrien"}, {"Müller", "muller"}, {"Núñez", "nunez"}, {"D'Angelo", "dangelo"},
	{"Smith", "smith"}, {"Nakamura", "nakamura"}, {"Park", "park"}, {"García", "garcia"},
}

var koreanNames = []nameParts{
	{"김서연", "kim.seoyeon"}, {"이민준", "lee.minjun"}, {"박지호", "park.jiho"},
	{"최하은", "choi.haeun"}, {"정우진", "jung.woojin"}, {"강예린", "kang.yerin"},
}

var domains = []string{"email.com", "example.com", "example.org", "mail.example.net"}

var subjects = []string{
	"GSI 설계", "single-table design", "DynamoDB의 정렬키", "a composite sort key",
	"파티션 키 선택", "one-to-many relations", "N:M 관계", "TTL on sessions",
	"O'Reilly's DynamoDB chapter", "Query pagination", "hot partitions", "마이그레이션 순서",
	"begins_with on a sort key", "Café menu in DynamoDB", "비용 계산 💸", "LSI vs GSI",
}

var questionForms = []string{
	"How do I model %s?", "%s: what am I missing?", "%s 어떻게 하나요?", "Is %s worth it?",
}

var sentences = []string{
	"단일 테이블로 충분할까요?",
	"I read the AWS docs twice and still don't get it.",
	"Data 속성을 GSI의 파티션 키로 씁니다.",
	"The sort key starts with the state, then the time.",
	"관계 데이터는 양쪽으로 저장했습니다.",
	"It works on DynamoDB Local but I'm not sure about production.",
	"Here's what I tried first — it didn't scale.",
	"비용은 RCU와 WCU로 계산됩니다.",
	"Thanks, that fixed it 🙏",
	"Zoë's answer above is the right one.",
	"인덱스가 너무 많으면 쓰기 비용이 늘어납니다.",
	"Use begins_with with a prefix that ends in a separator.",
}

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

// bcryptAlphabet is the alphabet of bcrypt's salt and hash.
const bcryptAlphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// hashedPassword returns a string shaped like a bcrypt hash (60 characters);
// it is random text, not the hash of any password.
func hashedPassword(r rnd) string {
	var b strings.Builder
	b.WriteString("$2b$12$")
	for range 53 {
		b.WriteByte(bcryptAlphabet[r.intn(len(bcryptAlphabet))])
	}
	return b.String()
}

// generate draws the whole dataset from one PCG source. Every part below
// draws from r in turn, so the order of the calls here is the order of the
// draws, and data.sql depends on it: categories, tags, users (with their
// e-mails), then each user's posts.
func generate(scale int) *dataset {
	r := rnd{rand.NewPCG(seed1, seed2)}
	d := &dataset{}
	for i, n := range categoryNames {
		d.categories = append(d.categories, category{int64(i + 1), n, r.between(tsMin, opening)})
	}
	for i, n := range tagNames {
		d.tags = append(d.tags, tag{int64(i + 1), n, r.between(tsMin, opening)})
	}
	genUsers(r, d, usersPerScale*scale)
	for _, u := range d.users {
		d.posts = append(d.posts, userPosts(r, u, d.tags)...)
	}
	numberPosts(d.posts)
	return d
}

// genUsers makes users 1..n and their e-mails, the e-mails in id order.
func genUsers(r rnd, d *dataset, n int) {
	emailIDs := shuffledEmailIDs(r, n)
	for i := 1; i <= n; i++ {
		e, u := newUser(r, i, emailIDs[i-1])
		d.emails = append(d.emails, e)
		d.users = append(d.users, u)
	}
	slices.SortFunc(d.emails, func(a, b email) int { return int(a.id - b.id) })
}

// shuffledEmailIDs returns the e-mail ids of users 1..n: a permutation of
// the user ids (user 1 keeps e-mail 1, the article's user@email.com), so
// that a key that takes the wrong id shows.
func shuffledEmailIDs(r rnd, n int) []int64 {
	emailIDs := make([]int64, n)
	for i := range emailIDs {
		emailIDs[i] = int64(i + 1)
	}
	for i := len(emailIDs) - 1; i > 1; i-- {
		j := 1 + r.intn(i)
		emailIDs[i], emailIDs[j] = emailIDs[j], emailIDs[i]
	}
	return emailIDs
}

// newUser makes user i and its e-mail emailID: the name, the e-mail's
// domain, the password hash and the sign-up time, drawn in that order.
func newUser(r rnd, i int, emailID int64) (email, *user) {
	n := userName(r, i)
	e := email{id: emailID, localPart: fmt.Sprintf("%s.%d", n.slug, i), domain: pick(r, domains)}
	if i == 1 {
		e.localPart, e.domain = "user", "email.com" // the article's address
	}
	u := &user{
		id:             int64(i),
		emailID:        e.id,
		nickname:       n.display,
		hashedPassword: hashedPassword(r),
		created:        r.between(opening, signupMax),
	}
	if i == 1 {
		u.created = opening
	}
	return e, u
}

// userName is user i's name: fixed for user 1, else a Korean name three
// times in ten or a first and a last name.
func userName(r rnd, i int) nameParts {
	switch {
	case i == 1:
		return nameParts{"Siobhán O'Brien", "user"}
	case r.chance(30):
		return pick(r, koreanNames)
	default:
		f, l := pick(r, firstNames), pick(r, lastNames)
		return nameParts{f.display + " " + l.display, f.slug + "." + l.slug}
	}
}

// userPosts makes 0-9 posts of u (8 for user 1). User 1 and every 40th user
// also imported a batch of two posts that share user, kind, state, category,
// time and tags.
func userPosts(r rnd, u *user, tags []tag) []*post {
	n := r.intn(10)
	if u.id == 1 {
		n = 8
	}
	var mine []*post
	for j := range n {
		mine = append(mine, newPost(r, u, j, tags))
	}
	if len(mine) > 0 && (u.id == 1 || u.id%40 == 0) {
		mine = append(mine, batchTwin(r, mine[0], u.id, tags))
	}
	return mine
}

// newPost makes u's j-th post: kind, state, category, time, text and tags.
func newPost(r rnd, u *user, j int, tags []tag) *post {
	p := &post{userID: u.id, kind: "question", state: "PUBLISHED"}
	if r.chance(45) {
		p.kind = "answer"
	}
	if r.chance(30) {
		p.state = "DRAFT"
	}
	if u.id == 1 && j < 4 { // every kind and state for the known user
		p.kind = []string{"question", "answer"}[j%2]
		p.state = []string{"DRAFT", "PUBLISHED"}[j/2]
	}
	if p.kind == "question" && r.chance(90) || p.kind == "answer" && r.chance(50) {
		p.categoryID = int64(1 + r.intn(len(categoryNames)))
	}
	p.created = r.between(u.created, tsMax)
	p.title, p.body = text(r, p.kind)
	p.tags = tagsFor(r, tags, p.created)
	return p
}

// batchTwin marks src as imported in a batch, gives it a category and a tag
// if it has none, and returns its twin: the same post with its own text.
func batchTwin(r rnd, src *post, userID int64, tags []tag) *post {
	if userID == 1 {
		src.kind, src.state = "question", "DRAFT"
	}
	if src.categoryID == 0 {
		src.categoryID = 1
	}
	if len(src.tags) == 0 {
		src.tags = []postTag{{tagID: tags[0].id, created: src.created}}
	}
	twin := *src
	twin.title, twin.body = text(r, twin.kind)
	twin.tags = slices.Clone(src.tags)
	src.batch, twin.batch = true, true
	return &twin
}

// numberPosts sorts posts by time and numbers them from 1: post ids grow
// with time, as an auto-increment would give them.
func numberPosts(posts []*post) {
	slices.SortStableFunc(posts, func(a, b *post) int { return a.created.Compare(b.created) })
	for i, p := range posts {
		p.id = int64(i + 1)
		for j := range p.tags {
			p.tags[j].postID = p.id
		}
	}
}

// tagsFor picks 0-4 distinct tags for a post written at created. Most are
// put on the post when it is written (the same second), some later.
func tagsFor(r rnd, tags []tag, created time.Time) []postTag {
	n := r.intn(5)
	chosen := map[int]bool{}
	for len(chosen) < n {
		chosen[r.intn(len(tags))] = true
	}
	var out []postTag
	for i, t := range tags { // in tag order: deterministic
		if !chosen[i] {
			continue
		}
		at := created
		if r.chance(25) {
			at = r.between(created, tsMax)
		}
		out = append(out, postTag{tagID: t.id, created: at})
	}
	return out
}

func text(r rnd, kind string) (title, body string) {
	subject := pick(r, subjects)
	if kind == "question" {
		title = fmt.Sprintf(pick(r, questionForms), subject)
	} else {
		title = "Re: " + subject
	}
	parts := make([]string, 1+r.intn(3))
	for i := range parts {
		parts[i] = pick(r, sentences)
	}
	return title, strings.Join(parts, " ")
}

// ---------------------------------------------------------------------------
// SQL output

// Column values that need their own SQL rendering, and the tables.
type (
	ts     = sqlscript.TS
	nullID = sqlscript.NullID
	table  = sqlscript.Table
)

func literal(v any) (string, error) { return sqlscript.Literal(v) }

func tables(d *dataset) []table {
	emails := table{Name: "emails", Cols: []string{"email_id", "local_part", "domain"}}
	users := table{Name: "users", Cols: []string{"user_id", "email_id", "nickname", "hashed_password", "created_at"}}
	cats := table{Name: "categories", Cols: []string{"category_id", "name", "created_at"}}
	posts := table{Name: "posts", Cols: []string{"post_id", "user_id", "category_id", "kind", "state", "title", "body", "created_at"}}
	tags := table{Name: "tags", Cols: []string{"tag_id", "name", "created_at"}}
	postTags := table{Name: "post_tags", Cols: []string{"post_id", "tag_id", "created_at"}}
	for _, e := range d.emails {
		emails.Rows = append(emails.Rows, []any{e.id, e.localPart, e.domain})
	}
	for _, u := range d.users {
		users.Rows = append(users.Rows, []any{u.id, u.emailID, u.nickname, u.hashedPassword, ts(u.created)})
	}
	for _, c := range d.categories {
		cats.Rows = append(cats.Rows, []any{c.id, c.name, ts(c.created)})
	}
	for _, p := range d.posts {
		posts.Rows = append(posts.Rows, []any{p.id, p.userID, nullID(p.categoryID), p.kind, p.state, p.title, p.body, ts(p.created)})
		for _, pt := range p.tags {
			postTags.Rows = append(postTags.Rows, []any{pt.postID, pt.tagID, ts(pt.created)})
		}
	}
	for _, t := range d.tags {
		tags.Rows = append(tags.Rows, []any{t.id, t.name, ts(t.created)})
	}
	// Foreign-key order.
	return []table{emails, users, cats, posts, tags, postTags}
}

func write(w *bufio.Writer, d *dataset, scale int, engine string) error {
	tbls := tables(d)
	cmd := "go run ./examples/board/gen"
	if scale != 1 {
		cmd += " -scale " + strconv.Itoa(scale)
	}
	if engine != "" {
		cmd += " -engine " + engine
	}
	return sqlscript.Write(w, "board", cmd, engine, tbls)
}
