package document

import (
	"fmt"
	"html"
	"html/template"
	"strings"
	"unicode"
)

// The document's pictures are SVG written here, inline in the HTML: no
// script, no library, no font or image fetched. Text is measured by an
// estimate (textWidth), so labels are cut to the room they have rather
// than measured by a browser.

// svgDoc builds one <svg> element.
type svgDoc struct {
	b strings.Builder
}

func (s *svgDoc) f(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

// text writes a <text> element, its content escaped and cut to max pixels
// at the given size (0: no cut).
func (s *svgDoc) text(x, y float64, size float64, class, anchor, content string, max float64) {
	if max > 0 {
		content = fit(content, size, max)
	}
	s.f(`<text x="%s" y="%s" font-size="%s"`, num(x), num(y), num(size))
	if class != "" {
		s.f(` class="%s"`, class)
	}
	if anchor != "" && anchor != "start" {
		s.f(` text-anchor="%s"`, anchor)
	}
	s.f(`>%s</text>`, esc(content))
}

func (s *svgDoc) rect(x, y, w, h float64, class string, extra string) {
	s.f(`<rect x="%s" y="%s" width="%s" height="%s" class="%s"%s/>`, num(x), num(y), num(w), num(h), class, extra)
}

// wrap returns the finished element: width and height in pixels, a class
// and an accessible title.
func (s *svgDoc) wrap(class, title string, w, h float64) template.HTML {
	return template.HTML(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" class="%s" width="%s" height="%s" viewBox="0 0 %s %s" role="img"><title>%s</title>%s</svg>`,
		class, num(w), num(h), num(w), num(h), esc(title), s.b.String()))
}

func esc(s string) string { return html.EscapeString(s) }

// num prints a coordinate with at most one decimal.
func num(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	return strings.TrimSuffix(s, ".0")
}

// wide says whether a rune takes a full em (Hangul, CJK, full-width forms).
func wide(r rune) bool {
	return unicode.In(r, unicode.Hangul, unicode.Han, unicode.Hiragana, unicode.Katakana) ||
		(r >= 0xFF00 && r <= 0xFF60) || (r >= 0x1F300 && r <= 0x1FAFF)
}

// textWidth estimates the width of s in pixels at a font size: a full em
// for wide runes, 0.62 em for the others (a little wider than the mean of
// a sans-serif, so that text rarely overflows its box).
func textWidth(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		if wide(r) {
			w += size
		} else {
			w += 0.62 * size
		}
	}
	return w
}

// fit cuts s with an ellipsis to at most max pixels at size.
func fit(s string, size, max float64) string {
	if textWidth(s, size) <= max {
		return s
	}
	var b strings.Builder
	w := textWidth("…", size)
	for _, r := range s {
		rw := 0.62 * size
		if wide(r) {
			rw = size
		}
		if w+rw > max {
			break
		}
		w += rw
		b.WriteRune(r)
	}
	return b.String() + "…"
}

// bytesText is a byte count for people: 812 B, 3.4 KB, 1.2 MB (1000s, as
// DynamoDB's limits are written).
func bytesText(n float64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f KB", n/1e3)
	}
	return fmt.Sprintf("%.0f B", n)
}
