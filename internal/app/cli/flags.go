package cli

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/remodel-dev/remodel/migrate"
)

// flagError turns cobra's and pflag's flag errors into one usage error that
// names the command once and, for a mistyped flag, the flag that was
// probably meant.
func flagError(c *cobra.Command, err error) error {
	see := "see " + c.CommandPath() + " --help"
	var ne *pflag.NotExistError
	var ve *pflag.InvalidValueError
	switch {
	case errors.As(err, &ne) && ne.GetSpecifiedName() != "":
		name := ne.GetSpecifiedName()
		if m := closest(name, flagNames(c.Flags())); m != "" {
			return usagef("%v (did you mean --%s? %s)", err, m, see)
		}
		if !c.HasParent() {
			for _, sub := range c.Commands() {
				if m := closest(name, flagNames(sub.Flags())); m != "" {
					return usagef("%v (--%s is a flag of the commands, as in %s --%s; %s)", err, m, sub.CommandPath(), m, see)
				}
			}
		}
	case errors.As(err, &ve):
		f := ve.GetFlag()
		return usagef("invalid value %q for --%s: want %s (%s)", ve.GetValue(), f.Name, valueKind(f.Value.Type()), see)
	}
	return usagef("%v (%s)", err, see)
}

func valueKind(typ string) string {
	switch typ {
	case "int", "int64":
		return "an integer"
	case "duration":
		return "a duration such as 30s, 2m or 1h30m"
	case "bool":
		return "true or false"
	}
	return "a " + typ
}

func flagNames(fs *pflag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	sort.Strings(names)
	return names
}

// closest is the name within edit distance 2 of s (the nearest, the first
// in order on a tie), or the only name s is a prefix of; "" if none.
func closest(s string, names []string) string {
	best, bestD := "", 3
	var prefixed []string
	for _, n := range names {
		if d := editDistance(s, n); d < bestD {
			best, bestD = n, d
		}
		if strings.HasPrefix(n, s) {
			prefixed = append(prefixed, n)
		}
	}
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, where swapping
// two neighbouring letters counts once ("tabel" is 1 from "table").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// checks collects the problems with flag values, so that all of them are
// reported at once, before anything is opened.
type checks []string

func (c *checks) atLeast(flag string, v, least int64) {
	if v < least {
		*c = append(*c, fmt.Sprintf("--%s must be at least %d, got %d", flag, least, v))
	}
}

func (c *checks) positive(flag string, d time.Duration) {
	if d <= 0 {
		*c = append(*c, fmt.Sprintf("--%s must be longer than 0s, got %s", flag, d))
	}
}

// replaceable refuses a path migrate would delete to replace it
// (migrate.CheckReplaceable).
func (c *checks) replaceable(flag, path string) {
	if err := migrate.CheckReplaceable(path); err != nil {
		*c = append(*c, fmt.Sprintf("--%s must be a file's path: %v", flag, err))
	}
}

func (c *checks) oneOf(flag, v string, allowed ...string) {
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	*c = append(*c, fmt.Sprintf("--%s must be %s, got %q", flag, strings.Join(allowed, " or "), v))
}

var regionRE = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$`)

func (c *checks) region(v string) {
	if v != "" && !regionRE.MatchString(v) {
		*c = append(*c, fmt.Sprintf("--region must be a region name such as us-east-1, got %q", v))
	}
}

func (c *checks) endpoint(flag, v string) {
	if v == "" {
		return
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		*c = append(*c, fmt.Sprintf("--%s must be an http:// or https:// URL such as http://127.0.0.1:8000, got %q", flag, v))
	}
}

func (c checks) err() error {
	if len(c) == 0 {
		return nil
	}
	return usageError{errors.New(strings.Join(c, "\n"))}
}
