package source

import (
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// maxKeysPerStatement bounds the keys one ScanKeys statement names; more
// are read by several statements, in order.
const maxKeysPerStatement = 500

// KeyBatches calls read with the keys, maxKeysPerStatement at a time.
func KeyBatches(keys []KeyBound, read func([]KeyBound) error) error {
	for len(keys) > 0 {
		n := min(len(keys), maxKeysPerStatement)
		if err := read(keys[:n]); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// KeysCond is the condition selecting the rows whose key is one of keys
// (or starts with it), with its parameters: (a = $1 AND b = $2) OR ...
func KeysCond(d introspect.Dialect, t *introspect.Table, keys []KeyBound) (string, []any, error) {
	var args []any
	ors := make([]string, 0, len(keys))
	for _, k := range keys {
		if len(k) > len(t.PrimaryKey) || len(k) == 0 {
			return "", nil, fmt.Errorf("source: a key of %d values for %s, whose key has %d columns", len(k), t.Label(), len(t.PrimaryKey))
		}
		ands := make([]string, len(k))
		for i, name := range t.PrimaryKey[:len(k)] {
			c := t.Column(name)
			if c == nil {
				return "", nil, fmt.Errorf("source: %s has no key column %s", t.Label(), name)
			}
			arg, wrap, ok := d.KeyArg(c, k[i])
			if !ok {
				return "", nil, fmt.Errorf("source: %s: the value %v of key column %s cannot name a row", t.Label(), k[i], name)
			}
			args = append(args, arg)
			p := d.Placeholder(len(args))
			if wrap != "" {
				p = fmt.Sprintf(wrap, p)
			}
			ands[i] = d.QuoteIdent(name) + " = " + p
		}
		ors = append(ors, "("+strings.Join(ands, " AND ")+")")
	}
	return "(" + strings.Join(ors, " OR ") + ")", args, nil
}
