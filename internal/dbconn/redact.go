package dbconn

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

// mask replaces every password Redact finds.
const mask = "***"

var (
	// urlStart finds connection URLs in text.
	urlStart = regexp.MustCompile(`(?i)postgres(?:ql)?://`)
	// passwordKey finds password keywords of keyword/value connection strings.
	passwordKey = regexp.MustCompile(`(?i)\b(?:ssl)?password\s*=\s*`)
	// netlocList matches a URL's host list without userinfo:
	// host[:port][,host[:port]]..., hosts possibly [IPv6].
	netlocList = regexp.MustCompile(`^(?:\[[^\]]*\]|[^:@/,\[\]]*)(?::[0-9]*)?(?:,(?:\[[^\]]*\]|[^:@/,\[\]]*)(?::[0-9]*)?)*$`)
)

// Redact returns s with every password replaced by ***. s may be a
// connection string, URL (postgres://u:secret@h/db, ?password=secret) or
// keyword/value (host=h password='a b'), or any text that contains
// connection strings, such as an error message. Passwords in well-formed
// connection strings are masked exactly; in malformed ones Redact rather masks
// too much than too little.
func Redact(s string) string {
	var b strings.Builder
	for {
		loc := urlStart.FindStringIndex(s)
		if loc == nil {
			b.WriteString(redactKeywords(s))
			return b.String()
		}
		b.WriteString(redactKeywords(s[:loc[0]]))
		s = s[loc[0]:]
		// A URL has no white space; the text after it is not part of it.
		end := strings.IndexFunc(s, unicode.IsSpace)
		if end < 0 {
			end = len(s)
		}
		b.WriteString(redactURL(s[:end]))
		s = s[end:]
	}
}

// redactURL masks the userinfo password and the password and sslpassword
// query parameters of a connection URL.
func redactURL(u string) string {
	var b strings.Builder
	i := strings.Index(u, "://") + len("://")
	b.WriteString(u[:i])
	rest := u[i:]

	if at := userinfoEnd(rest); at >= 0 {
		user, _, hasPassword := strings.Cut(rest[:at], ":")
		b.WriteString(user)
		if hasPassword {
			b.WriteString(":" + mask)
		}
		b.WriteByte('@')
		rest = rest[at+1:]
	}

	q := strings.IndexByte(rest, '?')
	if q < 0 {
		b.WriteString(rest)
		return b.String()
	}
	b.WriteString(rest[:q+1])
	for i, pair := range strings.Split(rest[q+1:], "&") {
		if i > 0 {
			b.WriteByte('&')
		}
		key, _, hasValue := strings.Cut(pair, "=")
		if hasValue && isPasswordKey(key) {
			b.WriteString(key + "=" + mask)
		} else {
			b.WriteString(pair)
		}
	}
	return b.String()
}

// userinfoEnd returns the index of the '@' that ends the userinfo of rest
// (a URL after "://"), or -1 when there is no userinfo.
//
// As in libpq, an '@' before the first '/' ends the userinfo. A password
// should have its '@', '/' and '?' percent-encoded; when one is not, the
// userinfo is taken to run to the last '@' before the path, and an '@'
// after a '/' or '?' still ends a userinfo unless what precedes that '/'
// or '?' reads as a plain host list (then the '@' is data, e.g. in a query
// value).
func userinfoEnd(rest string) int {
	first := strings.IndexByte(rest, '@')
	if first < 0 {
		return -1
	}
	end := len(rest)
	if i := strings.IndexAny(rest[first:], "/?"); i >= 0 {
		end = first + i
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if d := strings.IndexAny(rest[:at], "/?"); d >= 0 && netlocList.MatchString(rest[:d]) {
		return -1
	}
	return at
}

// isPasswordKey reports whether a (percent-encoded) URL query key names a password.
func isPasswordKey(key string) bool {
	if k, err := url.QueryUnescape(key); err == nil {
		key = k
	}
	key = strings.ToLower(key)
	return key == "password" || key == "sslpassword"
}

// redactKeywords masks the values of password= and sslpassword= in text
// holding keyword/value connection strings. Values are quoted with single
// quotes or end at white space; a backslash escapes the next character. An
// unterminated quoted value is masked to the end of the text.
func redactKeywords(s string) string {
	var b strings.Builder
	for {
		loc := passwordKey.FindStringIndex(s)
		if loc == nil {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:loc[1]])
		b.WriteString(mask)
		s = s[loc[1]+valueLen(s[loc[1]:]):]
	}
}

// valueLen returns the length of the keyword/value value at the start of s.
func valueLen(s string) int {
	quoted := strings.HasPrefix(s, "'")
	i := 0
	if quoted {
		i = 1
	}
	for i < len(s) {
		switch c := s[i]; {
		case c == '\\':
			i += 2
			continue
		case quoted && c == '\'':
			return i + 1
		case !quoted && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'):
			return i
		}
		i++
	}
	return len(s)
}
