package source

import (
	"strings"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// The fast paths of decodeText: the forms the engines print for the kinds
// read most often, decoded from the bytes without a string copy. Each
// accepts only text whose value it is sure of and returns false for
// anything else, which decodeText then reads its general way (and words
// the error of); where they accept, they give exactly what that way gives
// (FuzzParseTimestamp, FuzzParseDecimalInt).

// parseDecimalInt reads an optional '-' and 1 to 18 decimal digits: what
// strconv.ParseInt(s, 10, 64) reads to the same value, without overflow.
func parseDecimalInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// parseDate reads YYYY-MM-DD (the layout "2006-01-02" of parseTime) as a
// UTC time.
func parseDate(b []byte) (time.Time, bool) {
	if len(b) != 10 {
		return time.Time{}, false
	}
	y, mo, d, ok := dateFields(b)
	if !ok {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC), true
}

// parseTimestamp reads "YYYY-MM-DD hh:mm:ss", a fraction of 1 to 9 digits
// after a '.', and, when zoned, a UTC offset "±hh", "±hh:mm" or
// "±hh:mm:ss" (PostgreSQL's timestamptz), as parseTime with its layouts
// does, in UTC.
func parseTimestamp(b []byte, zoned bool) (time.Time, bool) {
	if len(b) < 19 || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	y, mo, d, ok := dateFields(b)
	if !ok {
		return time.Time{}, false
	}
	h, ok1 := num2(b[11:], 23)
	mi, ok2 := num2(b[14:], 59)
	sec, ok3 := num2(b[17:], 59)
	if !ok1 || !ok2 || !ok3 {
		return time.Time{}, false
	}
	rest := b[19:]
	ns := 0
	if len(rest) > 0 && rest[0] == '.' {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		digits := i - 1
		if digits < 1 || digits > 9 {
			return time.Time{}, false
		}
		for j := 1; j < i; j++ {
			ns = ns*10 + int(rest[j]-'0')
		}
		for j := digits; j < 9; j++ {
			ns *= 10
		}
		rest = rest[i:]
	}
	off := 0
	if zoned {
		if len(rest) != 3 && len(rest) != 6 && len(rest) != 9 || rest[0] != '+' && rest[0] != '-' {
			return time.Time{}, false
		}
		oh, ok := num2(rest[1:], 23)
		if !ok {
			return time.Time{}, false
		}
		off = oh * 3600
		if len(rest) >= 6 {
			om, ok := num2(rest[4:], 59)
			if rest[3] != ':' || !ok {
				return time.Time{}, false
			}
			off += om * 60
		}
		if len(rest) == 9 {
			os, ok := num2(rest[7:], 59)
			if rest[6] != ':' || !ok {
				return time.Time{}, false
			}
			off += os
		}
		if rest[0] == '-' {
			off = -off
		}
	} else if len(rest) != 0 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ns, time.UTC)
	if off != 0 {
		t = t.Add(-time.Duration(off) * time.Second)
	}
	return t, true
}

// dateFields reads YYYY-MM-DD at the start of b (at least 10 bytes): a
// year from 0001, a month, and a day that month has.
func dateFields(b []byte) (y, mo, d int, ok bool) {
	if b[4] != '-' || b[7] != '-' {
		return 0, 0, 0, false
	}
	for _, c := range b[:4] {
		if c < '0' || c > '9' {
			return 0, 0, 0, false
		}
		y = y*10 + int(c-'0')
	}
	mo, ok1 := num2(b[5:], 12)
	d, ok2 := num2(b[8:], 31)
	if y < 1 || !ok1 || !ok2 || mo < 1 || d < 1 || d > daysIn(mo, y) {
		return 0, 0, 0, false
	}
	return y, mo, d, true
}

// num2 reads two decimal digits at the start of b, a value of at most max.
func num2(b []byte, max int) (int, bool) {
	if len(b) < 2 || b[0] < '0' || b[0] > '9' || b[1] < '0' || b[1] > '9' {
		return 0, false
	}
	n := int(b[0]-'0')*10 + int(b[1]-'0')
	return n, n <= max
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// DecodeRow decodes a row's values in text form (decodeText of each
// column) into row, where the strings of its text columns share one
// allocation: each is a part of one string of them all.
func DecodeRow(cols []*introspect.Column, raw [][]byte, row []any, d introspect.Dialect) {
	n, k := 0, 0
	for i, c := range cols {
		if plainText(c) && raw[i] != nil {
			n += len(raw[i])
			k++
		}
	}
	var all string
	if k > 1 {
		var sb strings.Builder
		sb.Grow(n)
		for i, c := range cols {
			if plainText(c) && raw[i] != nil {
				sb.Write(raw[i])
			}
		}
		all = sb.String()
	}
	off := 0
	for i, c := range cols {
		if k > 1 && plainText(c) && raw[i] != nil {
			s := all[off : off+len(raw[i])]
			off += len(raw[i])
			if c.Kind == introspect.KindString {
				if err := checkText(s); err != nil {
					row[i] = err
					continue
				}
			}
			row[i] = s
			continue
		}
		row[i] = DecodeText(c, raw[i], d)
	}
}

// plainText reports whether decodeText makes a column's value the string
// of its bytes (for text, when they are valid UTF-8).
func plainText(c *introspect.Column) bool {
	if c == nil || c.Read != "" {
		return false
	}
	switch c.Kind {
	case introspect.KindString, introspect.KindDecimal, introspect.KindTime:
		return true
	}
	return false
}
