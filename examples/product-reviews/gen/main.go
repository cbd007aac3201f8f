// Command gen prints the data of the product-reviews example as one SQL
// script that loads unchanged into PostgreSQL and into MySQL/MariaDB, after
// schema.postgres.sql or schema.mysql.sql.
//
//	go run ./examples/product-reviews/gen > examples/product-reviews/data.sql
//
// The output is deterministic: a fixed seed, fixed lists, no clock.
//
// The data is shaped to test the sort keys of README.md:
//   - product 1 holds the article's eight reviews (with and without a body,
//     200, 31, 10 and 9 likes, score 5, created at 1600000000000 ms), so
//     the string sort of unpadded likes (9 > 31 > 200 > 10) would put them
//     in the wrong order; two more reviews equal to the article's body=1,
//     like=31 one in every sort attribute (a tie only the review id
//     breaks); and 15 with fewer likes;
//   - product 2 has 19 reviews with a body and distinct likes, then four
//     that tie on likes, score and time: the top 20 cuts through them;
//   - products 3 to 39 have 0 to 60 reviews each: likes from 0 to some
//     24 million, as many with 1 digit as with 7, scores 1 to 5, about two in three with a
//     body; product 40 has none.
//
// The script relies on what examples/internal/sqlscript writes: multi-row
// INSERT statements in foreign-key order, literals both engines read alike,
// the session's encoding (UTF-8) and time zone (UTC) set first.
package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/examples/internal/sqlscript"
)

// Seeds of the PCG generator. Change them and data.sql changes.
const seed1, seed2 = 1600000000, 0x7265766965777321

const (
	products = 40
	// maxLikes is the most likes the schema allows: 8 digits, the width
	// of like=00000200 in the article's sort key.
	maxLikes = 99_999_999
)

// articleTime is the article's createdAt, 1600000000000 ms.
var articleTime = time.Unix(1_600_000_000, 0).UTC()

var (
	productNames = []string{"무선 이어폰", "보조 배터리", "텀블러", "캠핑 의자", "기계식 키보드", "선크림", "러닝화", "에어프라이어", "백팩", "데스크 램프"}
	authors      = []string{"jiwoo", "minseo", "haeun", "doyun", "seoyeon", "yuna", "siwoo", "ara", "junho", "sora", "tan_mei", "nguyen_an", "putri", "lim_wei"}
	bodies       = []string{
		"배송이 빨라요.", "생각보다 작아요.", "가격 대비 만족합니다.", "색이 사진과 조금 달라요.", "두 번째 구매입니다.",
		"포장이 꼼꼼했어요.", "한 달 써 보고 남깁니다.", "Good value, fast shipping.", "Works as described.", "선물용으로 샀는데 반응이 좋아요 👍",
	}
)

type product struct {
	id   int64
	name string
}

type review struct {
	id, productID int64
	author        string
	body          string // "" is NULL: a rating without text
	likes, score  int64
	created       time.Time
}

type dataset struct {
	products []product
	reviews  []review
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
}

func run(out io.Writer) error {
	w := bufio.NewWriter(out)
	if err := sqlscript.Write(w, "product-reviews", "go run ./examples/product-reviews/gen", "", tables(generate())); err != nil {
		return err
	}
	return w.Flush()
}

func generate() *dataset {
	r := rand.New(rand.NewPCG(seed1, seed2))
	d := &dataset{}
	for id := int64(1); id <= products; id++ {
		d.products = append(d.products, product{id: id, name: fmt.Sprintf("%s %d", productNames[(id-1)%int64(len(productNames))], id)})
	}
	add := func(productID int64, body string, likes, score int64, created time.Time) {
		d.reviews = append(d.reviews, review{
			id: int64(len(d.reviews) + 1), productID: productID, author: authors[r.IntN(len(authors))],
			body: body, likes: likes, score: score, created: created,
		})
	}
	text := func() string {
		parts := make([]string, 1+r.IntN(3))
		for i := range parts {
			parts[i] = bodies[r.IntN(len(bodies))]
		}
		return strings.Join(parts, " ")
	}
	later := func() time.Time { return articleTime.Add(time.Duration(r.IntN(2*365*24*3600)) * time.Second) }
	// randomReview adds a review with likes spread evenly over the orders
	// of magnitude, from 0 to e^top - 1.
	randomReview := func(productID int64, top float64) {
		body := ""
		if r.IntN(3) > 0 {
			body = text()
		}
		likes := min(int64(math.Exp(r.Float64()*top))-1, maxLikes)
		add(productID, body, likes, 1+int64(r.IntN(5)), later())
	}

	// Product 1: the article's reviews, then two that tie with one of
	// them in every sort attribute, then a few ordinary ones.
	for _, body := range []bool{true, false} {
		for _, likes := range []int64{200, 31, 10, 9} {
			b := ""
			if body {
				b = text()
			}
			add(1, b, likes, 5, articleTime)
		}
	}
	add(1, text(), 31, 5, articleTime)
	add(1, text(), 31, 5, articleTime)
	for range 15 { // fewer than 9 likes: below the article's reviews
		randomReview(1, math.Log(9))
	}

	// Product 2: 19 ranked reviews with a body, four tied ones at places
	// 20 to 23, seven below them, and ten without a body.
	for i := range int64(19) {
		add(2, text(), 1000-10*i, 1+i%5, later())
	}
	tied := later()
	for range 4 {
		add(2, text(), 500, 4, tied)
	}
	for i := range int64(7) {
		add(2, text(), 100-i, 3, later())
	}
	for range 10 {
		add(2, "", 2000+int64(r.IntN(1000)), 1+int64(r.IntN(5)), later())
	}

	for id := int64(3); id < products; id++ {
		for range r.IntN(61) {
			randomReview(id, 17) // up to some 24 million likes
		}
	}
	return d
}

func tables(d *dataset) []sqlscript.Table {
	ps := sqlscript.Table{Name: "products", Cols: []string{"product_id", "name"}}
	rs := sqlscript.Table{Name: "reviews", Cols: []string{"review_id", "product_id", "author", "body", "likes", "score", "created_at"}}
	for _, p := range d.products {
		ps.Rows = append(ps.Rows, []any{p.id, p.name})
	}
	for _, rv := range d.reviews {
		var body any
		if rv.body != "" {
			body = rv.body
		}
		rs.Rows = append(rs.Rows, []any{rv.id, rv.productID, rv.author, body, rv.likes, rv.score, sqlscript.TS(rv.created)})
	}
	return []sqlscript.Table{ps, rs}
}
