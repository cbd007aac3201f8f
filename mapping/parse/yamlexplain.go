package parse

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// explainYAML rewrites a YAML syntax error whose cause the YAML library
// words poorly, where the text shows the cause:
//
//   - a tab in a line's indentation ("found character that cannot start
//     any token", "found a tab character that violates indentation",
//     reported at that line or the one before it): said as a tab, at the
//     tab's line and column;
//   - a key indented less than the keys before it but more than the block
//     around them ("did not find expected key", "did not find expected '-'
//     indicator", reported at the line where the enclosing block began,
//     often lines earlier): said as indentation, at the key's line.
//
// The library's own words stay at the end of the message. When the text
// does not show the cause, e is left as it is.
func explainYAML(e *Error, data []byte) {
	lines := strings.Split(string(data), "\n")
	switch e.Msg {
	case "found character that cannot start any token", "found a tab character that violates indentation":
		from := max(e.Line, 1)
		for n := from; n <= len(lines) && n <= from+1; n++ {
			l := lines[n-1]
			ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			if i := strings.IndexByte(ws, '\t'); i >= 0 {
				e.Line, e.Col = n, i+1
				e.Msg = "tab: a tab character in the indentation; YAML indents with spaces only: replace it with spaces (YAML: " + e.Msg + ")"
				return
			}
		}
	case "did not find expected key", "did not find expected '-' indicator":
		if n, indent, open, ok := misindented(lines, e.Line); ok {
			e.Line, e.Col = n, indent+1
			e.Msg = fmt.Sprintf("indentation: this line is indented %d spaces, as no block around it is (the lines above it are indented %s): indent it as the other keys of its map (YAML: %s)", indent, spaces(open), e.Msg)
		}
	}
}

// spaces is "0, 2 or 4 spaces".
func spaces(n []int) string {
	s := make([]string, len(n))
	for i, v := range n {
		s[i] = strconv.Itoa(v)
	}
	if len(s) == 1 {
		return s[0] + " spaces"
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1] + " spaces"
}

// blockScalar matches a line that starts a literal or folded block scalar
// (key: |, - >-, key: |2 # comment): the lines after it that are indented
// more are its text.
var blockScalar = regexp.MustCompile(`(^|:|-)\s*[|>][-+0-9]*\s*(#.*)?$`)

// misindented finds the first line at or after line from (1-based) whose
// indentation matches none of the blocks open above it: less than the
// line before it, more than the block that encloses that one. It returns
// the line, its indentation and the indentations a line there may have.
func misindented(lines []string, from int) (line, indent int, open []int, ok bool) {
	var stack []int // the indentations of the open blocks, innermost last
	scalar := -1    // inside a block scalar: the indentation of the line that began it
	flow := 0       // depth of [ and { left open by the lines before
	for i, l := range lines {
		content := strings.TrimLeft(l, " ")
		d := len(l) - len(content)
		trimmed := strings.TrimSpace(content)
		if scalar >= 0 {
			if trimmed == "" || d > scalar {
				continue
			}
			scalar = -1
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(content, "\t") {
			continue
		}
		if flow > 0 {
			flow = max(flow+flowDepth(trimmed), 0)
			continue
		}
		deeper := -1 // the innermost block closed by this line
		for len(stack) > 0 && stack[len(stack)-1] > d {
			deeper = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
		switch {
		case len(stack) > 0 && stack[len(stack)-1] == d:
		case deeper >= 0 && i+1 >= from:
			return i + 1, d, append(stack, deeper), true
		default:
			stack = append(stack, d)
		}
		// A list item's map begins after "- ": its keys are indented to there.
		rest, inner := trimmed, d
		for strings.HasPrefix(rest, "- ") {
			after := rest[2:]
			rest = strings.TrimLeft(after, " ")
			inner += 2 + len(after) - len(rest)
			stack = append(stack, inner)
		}
		if blockScalar.MatchString(trimmed) {
			scalar = d
		}
		flow = max(flow+flowDepth(trimmed), 0)
	}
	return 0, 0, nil, false
}

// flowDepth is how many [ and { a line opens and does not close, outside
// quotes and comments.
func flowDepth(s string) int {
	depth := 0
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || s[i-1] == ' '):
			return depth
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		}
	}
	return depth
}
