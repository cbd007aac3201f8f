package verify

import "encoding/json"

// readRowJSON is parseRowJSON's own reader of a row's JSON rendering: ok
// only for text it reads whole, to the map encoding/json (UseNumber)
// would read from it; anything else (an error too: a name twice, an
// escape it cannot read, a nesting too deep) is left to encoding/json,
// which gives the same map or the error (FuzzReadRowJSON holds the two to
// the same answer).
func readRowJSON(s string) (rowJSON, bool) {
	r := &jsonReader{s: s}
	r.space()
	m, ok := r.object(0)
	if !ok {
		return nil, false
	}
	r.space()
	return m, r.i == len(r.s)
}

// maxRowJSONDepth is how deep readRowJSON follows arrays and objects.
const maxRowJSONDepth = 64

type jsonReader struct {
	s string
	i int
}

func (r *jsonReader) space() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *jsonReader) lit(t string) bool {
	if len(r.s)-r.i < len(t) || r.s[r.i:r.i+len(t)] != t {
		return false
	}
	r.i += len(t)
	return true
}

func (r *jsonReader) value(depth int) (any, bool) {
	if r.i >= len(r.s) {
		return nil, false
	}
	switch c := r.s[r.i]; {
	case c == '"':
		return r.str()
	case c == '{':
		m, ok := r.object(depth + 1)
		return m, ok
	case c == '[':
		return r.array(depth + 1)
	case c == 't':
		return true, r.lit("true")
	case c == 'f':
		return false, r.lit("false")
	case c == 'n':
		return nil, r.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	return nil, false
}

// str reads a string (parseRowJSON has seen that the text is UTF-8); one
// with an escape is read by encoding/json.
func (r *jsonReader) str() (any, bool) {
	start := r.i + 1
	escaped := false
	for j := start; j < len(r.s); j++ {
		switch c := r.s[j]; {
		case c == '"':
			if !escaped {
				r.i = j + 1
				return r.s[start:j], true
			}
			var out string
			if err := json.Unmarshal([]byte(r.s[r.i:j+1]), &out); err != nil {
				return nil, false
			}
			r.i = j + 1
			return out, true
		case c == '\\':
			escaped = true
			j++ // the escaped byte, which may be "
		case c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// number reads a JSON number as its text, json.Number.
func (r *jsonReader) number() (any, bool) {
	start := r.i
	digits := func() int {
		n := 0
		for r.i < len(r.s) && r.s[r.i] >= '0' && r.s[r.i] <= '9' {
			r.i++
			n++
		}
		return n
	}
	if r.s[r.i] == '-' {
		r.i++
	}
	if r.i < len(r.s) && r.s[r.i] == '0' {
		r.i++
	} else if digits() == 0 {
		return nil, false
	}
	if r.i < len(r.s) && r.s[r.i] == '.' {
		r.i++
		if digits() == 0 {
			return nil, false
		}
	}
	if r.i < len(r.s) && (r.s[r.i] == 'e' || r.s[r.i] == 'E') {
		r.i++
		if r.i < len(r.s) && (r.s[r.i] == '+' || r.s[r.i] == '-') {
			r.i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	return json.Number(r.s[start:r.i]), true
}

func (r *jsonReader) object(depth int) (map[string]any, bool) {
	if depth > maxRowJSONDepth || !r.lit("{") {
		return nil, false
	}
	r.space()
	out := make(map[string]any, 8)
	if r.lit("}") {
		return out, true
	}
	for {
		if r.i >= len(r.s) || r.s[r.i] != '"' {
			return nil, false
		}
		k, ok := r.str()
		if !ok {
			return nil, false
		}
		name := k.(string)
		if _, twice := out[name]; twice {
			return nil, false
		}
		r.space()
		if !r.lit(":") {
			return nil, false
		}
		r.space()
		v, ok := r.value(depth)
		if !ok {
			return nil, false
		}
		out[name] = v
		r.space()
		if r.lit("}") {
			return out, true
		}
		if !r.lit(",") {
			return nil, false
		}
		r.space()
	}
}

func (r *jsonReader) array(depth int) (any, bool) {
	if depth > maxRowJSONDepth || !r.lit("[") {
		return nil, false
	}
	r.space()
	out := []any{}
	if r.lit("]") {
		return out, true
	}
	for {
		v, ok := r.value(depth)
		if !ok {
			return nil, false
		}
		out = append(out, v)
		r.space()
		if r.lit("]") {
			return out, true
		}
		if !r.lit(",") {
			return nil, false
		}
		r.space()
	}
}
