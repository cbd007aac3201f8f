package source

import (
	"context"
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
)

// maxKeysPerStatement bounds the keys one ScanKeys statement names; more
// are read by several statements, in order.
const maxKeysPerStatement = 500

// ScanKeys is ScanTable over the rows of t whose key is one of keys (a key
// may be a prefix of t's key: the rows whose key starts with it, as an
// embed's child rows are named by their parent's key); rows come in key
// order within each statement of up to maxKeysPerStatement keys.
func (r *pgReader) ScanKeys(ctx context.Context, t *introspect.Table, w string, keys []KeyBound, fn func(row []any) error) error {
	return scanKeys(keys, func(keys []KeyBound) error {
		cond, args, err := keysCond(pgDialect, t, keys)
		if err != nil {
			return err
		}
		return r.scanWhere(ctx, t, andWhere(w, cond), args, " by key", fn)
	})
}

// ScanKeys is ScanTable over the rows of t whose key is one of keys (see
// pgReader.ScanKeys).
func (r *myReader) ScanKeys(ctx context.Context, t *introspect.Table, w string, keys []KeyBound, fn func(row []any) error) error {
	return scanKeys(keys, func(keys []KeyBound) error {
		cond, args, err := keysCond(myDialect, t, keys)
		if err != nil {
			return err
		}
		return r.scanWhere(ctx, t, andWhere(w, cond), args, " by key", fn)
	})
}

// scanKeys calls read with the keys, maxKeysPerStatement at a time.
func scanKeys(keys []KeyBound, read func([]KeyBound) error) error {
	for len(keys) > 0 {
		n := min(len(keys), maxKeysPerStatement)
		if err := read(keys[:n]); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// keysCond is the condition selecting the rows whose key is one of keys
// (or starts with it), with its parameters: (a = $1 AND b = $2) OR ...
func keysCond(d introspect.Dialect, t *introspect.Table, keys []KeyBound) (string, []any, error) {
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
