package mapping

import (
	"fmt"
	"regexp"
	"strings"
)

// keyShape checks an access pattern's key condition, order and limit
// against the key attributes of what it queries (the table or an index):
// one template per partition key attribute, at most as many sort key
// values as sort key attributes, begins_with only on a string, no template
// for a binary attribute, order only with a sort key and one ordered SQL,
// limit only with order. It needs no source schema, so Check and Compile
// report the same problems. It reports whether there were none.
func (c *compiler) keyShape(ad *AccessPatternDef, path, target string, pk, sk []KeyAttr) bool {
	n := len(c.errs)
	binary := func(p Pos, fpath string, k KeyAttr) {
		c.errorf(p, fpath, "%s is a binary key attribute: a template renders text, which never matches it", k.Name)
	}
	switch {
	case len(ad.PK) == 0: // reported by the parser
	case len(ad.PK) != len(pk) && len(pk) == 1:
		c.errorf(ad.PKPos, path+".query.pk", "%s has one partition key attribute, %s: give one template, not %d", target, pk[0].Name, len(ad.PK))
	case len(ad.PK) != len(pk):
		c.errorf(ad.PKPos, path+".query.pk", "%s has %d partition key attributes (%s): give a list of %d templates, one for each in that order", target, len(pk), KeyNames(pk), len(pk))
	default:
		for i, k := range pk {
			if k.Type == "B" {
				binary(ad.PK[i].Pos, pkPath(path, ad, i), k)
			}
		}
	}
	if cond := ad.SK; cond != nil {
		used := len(cond.Eq)
		if cond.Op != "" {
			used++
		}
		switch {
		case len(sk) == 0:
			c.errorf(cond.Pos, path+".query.sk", "%s has no sort key", target)
		case used > len(sk):
			c.errorf(cond.Pos, path+".query.sk", "%s has %d sort key attribute%s (%s); the condition names %d", target, len(sk), plural(len(sk)), KeyNames(sk), used)
		default:
			for _, k := range sk[:used] {
				if k.Type == "B" {
					binary(cond.Pos, path+".query.sk", k)
				}
			}
			if cond.Op == "begins_with" && sk[len(cond.Eq)].Type == "N" {
				c.errorf(cond.Pos, path+".query.sk", "begins_with needs a string sort key; %s is a number", sk[len(cond.Eq)].Name)
			}
		}
	}
	ordered := ad.Order.Value != ""
	if ordered && len(sk) == 0 {
		c.errorf(ad.Order.Pos, path+".order", "order needs a sort key, and %s has none", target)
	}
	if ad.Limit > 0 && !ordered {
		c.errorf(ad.LimitPos, path+".limit", "limit takes the first items in sort key order: say which with order: asc or desc")
	}
	if ordered && len(ad.SQL) > 1 {
		c.errorf(ad.Order.Pos, path+".order", "order needs a single sql: the rows of several entities' queries have no order among them")
	}
	if ordered && len(ad.SQL) == 1 && len(sk) > 0 && !sqlHasOrderBy(ad.SQL[0].Value.Value) {
		fpath := path + ".sql"
		if ad.SQL[0].Key.Value != "" {
			fpath += "." + ad.SQL[0].Key.Value
		}
		c.errorf(ad.SQL[0].Value.Pos, fpath, "the SQL of an ordered pattern needs an ORDER BY that sorts as %s's sort key (%s) does", target, KeyNames(sk))
	}
	return len(c.errs) == n
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// pkPath is the field path of the i-th partition key template.
func pkPath(path string, ad *AccessPatternDef, i int) string {
	if len(ad.PK) == 1 {
		return path + ".query.pk"
	}
	return fmt.Sprintf("%s.query.pk[%d]", path, i)
}

// skTemplates lists the condition's templates: the equalities, then the
// range condition's values.
func skTemplates(c *SKCond) []Str {
	if c == nil {
		return nil
	}
	return append(c.Eq[:len(c.Eq):len(c.Eq)], c.Values...)
}

// skOp is the range condition's operator, "" for none.
func skOp(c *SKCond) string {
	if c == nil {
		return ""
	}
	return c.Op
}

var orderByRE = regexp.MustCompile(`(?i)\border\s+by\b`)

// sqlHasOrderBy reports whether SQL text has ORDER BY outside its quoted
// strings, quoted names and comments.
func sqlHasOrderBy(src string) bool {
	var b strings.Builder
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '\'' || c == '"' || c == '`':
			end := strings.IndexByte(src[i+1:], c)
			if end < 0 {
				return false
			}
			b.WriteByte(' ')
			i += end + 2
		case strings.HasPrefix(src[i:], "--"):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			b.WriteByte(' ')
			i += end
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return false
			}
			b.WriteByte(' ')
			i += end + 4
		default:
			b.WriteByte(c)
			i++
		}
	}
	return orderByRE.MatchString(b.String())
}
