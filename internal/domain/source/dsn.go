package source

import (
	"net/url"
	"regexp"
	"strings"
)

// kvPass is a password in the keyword/value form: password=secret or
// password='secret with spaces' (sslpassword too).
var kvPass = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)`)

// Redact hides the password of a DSN, for messages and logs.
func Redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.Opaque == "" {
		changed := false
		if u.User != nil {
			if _, ok := u.User.Password(); ok {
				u.User = url.UserPassword(u.User.Username(), "xxxxx")
				changed = true
			}
		}
		q := u.Query()
		for k := range q {
			if strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword") {
				q.Set(k, "xxxxx")
				changed = true
			}
		}
		if !changed {
			return dsn
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	return redactNative(kvPass.ReplaceAllString(dsn, "${1}xxxxx"))
}

// redactNative hides the password of a go-sql-driver DSN,
// [user[:password]@][net[(addr)]]/dbname[?params], where the driver finds
// it: between the first ':' and the last '@' before the last '/' (the
// password may hold both). A URL that did not parse is treated the same way.
func redactNative(dsn string) string {
	end := strings.LastIndexByte(dsn, '/')
	if end < 0 {
		end = len(dsn)
	}
	at := strings.LastIndexByte(dsn[:end], '@')
	if at < 0 {
		at = strings.LastIndexByte(dsn, '@')
	}
	if at < 0 {
		return dsn
	}
	start := 0 // after the scheme of a URL
	if i := strings.Index(dsn[:at], "://"); i >= 0 {
		start = i + len("://")
	}
	colon := strings.IndexByte(dsn[start:at], ':')
	if colon < 0 {
		return dsn
	}
	colon += start
	return dsn[:colon+1] + "xxxxx" + dsn[at:]
}
