package warn

import "github.com/remodel-dev/remodel/mapping"

// quotedParams warns about a {name} written inside a '…' string in an
// access pattern's sql or params: there it is the literal text {name}, and
// the SQL runs without that parameter.
func (w *warner) quotedParams(ap *mapping.AccessPatternDef) {
	path := "access_patterns." + ap.Name.Value
	check := func(s mapping.Str, fpath string) {
		q := w.parseSQL(s.Value)
		if q == nil {
			return // a syntax error, reported by Check and Compile
		}
		for _, n := range q.QuotedParams() {
			w.warnf(about{code: mapping.WarnQuotedParameter, pattern: ap.Name.Value}, s.Pos, fpath, "{%s} is inside quotes: there it is the literal text {%s}, not a parameter; write it without the quotes (a parameter is bound with its value, no quoting needed)", n, n)
		}
	}
	for _, kv := range ap.SQL {
		fpath := path + ".sql"
		if kv.Key.Value != "" {
			fpath += "." + kv.Key.Value
		}
		check(kv.Value, fpath)
	}
	if ap.Params.Value != "" {
		check(ap.Params, path+".params")
	}
}

// parseSQL parses SQL as the source's engine reads it, or without a
// schema with either engine's string escapes; nil if it does not parse.
func (w *warner) parseSQL(src string) *mapping.SQLTemplate {
	backslash := w.s != nil && w.s.Engine.Dialect().BackslashEscapes()
	if q, err := mapping.ParseSQL(src, backslash); err == nil {
		return q
	}
	if w.s == nil {
		if q, err := mapping.ParseSQL(src, true); err == nil {
			return q
		}
	}
	return nil
}
