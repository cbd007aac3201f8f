package warn

import (
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/mapping"
)

// describe is how the acknowledgement is named in a stale warning.
func describe(a *mapping.AckDef) string {
	parts := []string{a.Warning.Value}
	for _, s := range []struct {
		what string
		v    mapping.Str
	}{{"entity", a.Entity}, {"index", a.Index}, {"pattern", a.Pattern}, {"table", a.Table}} {
		if s.v.Value != "" {
			parts = append(parts, s.what+" "+s.v.Value)
		}
	}
	return strings.Join(parts, ", ")
}

// matches says whether the acknowledgement is about w.
func matches(a *mapping.AckDef, w *Warning) bool {
	if a.Warning.Value != w.Code {
		return false
	}
	for _, s := range []struct{ want, got string }{
		{a.Entity.Value, w.Entity}, {a.Index.Value, w.Index}, {a.Pattern.Value, w.Pattern},
	} {
		if s.want != "" && s.want != s.got {
			return false
		}
	}
	if t := a.Table.Value; t != "" && t != w.Table && !strings.HasSuffix(w.Table, "."+t) {
		return false
	}
	return true
}

// acknowledge marks the warnings an acknowledgement of f matches (Ack),
// and adds a stale-acknowledgement warning for each acknowledgement that
// matches none.
func acknowledge(f *mapping.File, ws []*Warning) []*Warning {
	for _, a := range f.Acknowledge {
		used := false
		for _, w := range ws {
			if matches(a, w) {
				used = true
				if w.Ack == nil {
					w.Ack = a
				}
			}
		}
		if !used {
			ws = append(ws, &Warning{Error: mapping.Error{File: f.Name, Line: a.Line, Col: a.Col, Path: "acknowledge",
				Msg: fmt.Sprintf("the acknowledgement of %s matches no warning: remove it (the design no longer has that risk, or the names are wrong)", describe(a))},
				Code: mapping.WarnStaleAcknowledgement})
		}
	}
	return ws
}
