package source

import (
	"net/url"
	"regexp"
)

var nativePass = regexp.MustCompile(`^([^:@/]*):([^@]*)@`)

// Redact hides the password of a DSN, for messages and logs.
func Redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		return u.String()
	}
	if nativePass.MatchString(dsn) {
		return nativePass.ReplaceAllString(dsn, "${1}:xxxxx@")
	}
	return dsn
}
