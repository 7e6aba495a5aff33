package dbconn

import (
	"cmp"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// mask replaces every password Redact finds.
const mask = "***"

var (
	// urlStart finds connection URLs in text.
	urlStart = regexp.MustCompile(`(?i)postgres(?:ql)?://`)
	// urlPrefix matches the start of a string that is a connection URL.
	urlPrefix = regexp.MustCompile(`(?i)^postgres(?:ql)?://`)
	// schemeLike matches the start of a URL with an unknown or misspelt
	// scheme: postgress://, postgres//, postgres:/, http://.
	schemeLike = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*(?::/+|//)`)
	// keywordStart matches the start of a keyword/value connection string.
	keywordStart = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\s*=`)
	// userinfoStart matches the start of a URL without a scheme,
	// user:password@host: a user name, a ':' followed by a password, an '@'.
	userinfoStart = regexp.MustCompile(`^[A-Za-z_][^\s:@/=]*:[^\s@][^@]*@`)
	// passwordKey finds password keywords of keyword/value connection strings.
	passwordKey = regexp.MustCompile(`(?i)\b(?:ssl)?password\s*=\s*`)
	// passwordWord finds a password keyword in a malformed keyword/value
	// string, with or without its '=' ("host=h password secret").
	passwordWord = regexp.MustCompile(`(?i)(?:^|\s)(?:ssl)?password(?:\s*=\s*|\s+)`)
	// netlocList matches a URL's host list without userinfo:
	// host[:port][,host[:port]]..., hosts possibly [IPv6].
	netlocList = regexp.MustCompile(`^(?:\[[^\]]*\]|[^:@/,\[\]]*)(?::[0-9]*)?(?:,(?:\[[^\]]*\]|[^:@/,\[\]]*)(?::[0-9]*)?)*$`)
)

// Redact returns s with every password replaced by ***.
//
// When s as a whole looks like one connection string — it starts with a URL
// scheme (postgres://, or a misspelt one such as postgress:// or
// postgres//), with user:password@, or with keyword=value — it is treated as
// one, even if it does not parse: a password with unencoded white space,
// '@', '/' or '?' in a URL, "password secret" without its '=', a double- or
// unterminated quoted value. Otherwise s is text, such as an error message,
// and Redact masks the connection strings it finds in it: URLs, password=
// values and user:password@host words.
//
// Passwords in well-formed connection strings are masked exactly, user
// names and hosts are kept; in malformed ones Redact rather masks too much
// than too little.
func Redact(s string) string {
	if isConnString(s) {
		redacted, _ := redactConnString(s)
		return redacted
	}
	return redactText(s)
}

// isConnString reports whether s as a whole looks like one connection
// string rather than text (see Redact).
func isConnString(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || strings.ContainsAny(t, "\r\n") {
		return false
	}
	return schemeLike.MatchString(t) || keywordStart.MatchString(t) || userinfoStart.MatchString(t)
}

// span is a byte range [start, end) of a string that holds a secret.
type span struct{ start, end int }

// redactConnString masks the passwords of s, which is one whole connection
// string, possibly malformed. It also returns the ranges of s it masked.
func redactConnString(s string) (string, []span) {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	var spans []span
	switch {
	case urlPrefix.MatchString(t):
		spans = urlSecrets(t)
	case keywordStart.MatchString(t):
		spans = keywordSecrets(t)
	default:
		spans = otherSecrets(t)
	}
	off := len(s) - len(t)
	for i := range spans {
		spans[i].start += off
		spans[i].end += off
	}
	spans = mergeSpans(spans)
	return applySpans(s, spans), spans
}

// urlSecrets returns the password ranges of u, a connection URL: the
// userinfo password and the values of password and sslpassword parameters.
//
// As in libpq, an '@' before the first '/' ends the userinfo. A password
// should have its '@', '/' and white space percent-encoded; when the URL is
// malformed (see malformedURL), the userinfo is taken to run to the last
// '@' of u.
func urlSecrets(u string) []span {
	i := strings.Index(u, "://") + len("://")
	rest := u[i:]
	at := -1
	if j := strings.IndexAny(rest, "@/"); j >= 0 && rest[j] == '@' {
		at = j
	}
	if malformedURL(rest, at) {
		at = strings.LastIndexByte(rest, '@')
	}
	var spans []span
	if at >= 0 {
		if c := strings.IndexByte(rest[:at], ':'); c >= 0 {
			spans = append(spans, span{i + c + 1, i + at})
		}
	}
	return append(spans, queryPasswords(u, i)...)
}

// malformedURL reports whether rest, a URL after its "://" whose userinfo
// ends at index at (-1: none), is one libpq would refuse or misread:
// white space or a bad percent escape in it, a host list that is not one
// (an '@' in a host, a port that is not a number), a query parameter
// without exactly one '=', or, without userinfo, a database name with an
// '@' followed by a '/' or ':' (postgres://u:1234/pw@host/db, a password
// with an unencoded '/' that reads as a port and a database).
func malformedURL(rest string, at int) bool {
	if strings.ContainsFunc(strings.TrimSpace(rest), unicode.IsSpace) || badPercent(rest) {
		return true
	}
	if slash := strings.IndexByte(rest, '/'); at < 0 && slash >= 0 {
		path, _, _ := strings.Cut(rest[slash+1:], "?")
		if a := strings.LastIndexByte(path, '@'); a >= 0 && strings.ContainsAny(path[a+1:], "/:") {
			return true
		}
	}
	after := rest[at+1:]
	netloc := after
	if k := strings.IndexAny(netloc, "/?"); k >= 0 {
		netloc = netloc[:k]
	}
	if !netlocList.MatchString(netloc) {
		return true
	}
	if q := strings.IndexByte(after, '?'); q >= 0 {
		for _, pair := range strings.Split(after[q+1:], "&") {
			if pair != "" && strings.Count(pair, "=") != 1 {
				return true
			}
		}
	}
	return false
}

// badPercent reports whether s has a '%' that is not followed by two hex
// digits, or a %00.
func badPercent(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) || s[i+1:i+3] == "00" {
			return true
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// queryPasswords returns the ranges of the values of password and
// sslpassword parameters in u from index from on. Every '?' and '&' is
// taken to start a parameter, so a password is found even where a
// malformed URL's query starts is unclear; a value runs to the next '&'.
func queryPasswords(u string, from int) []span {
	var spans []span
	for p := from; p < len(u); p++ {
		if u[p] != '?' && u[p] != '&' {
			continue
		}
		pair := u[p+1:]
		if end := strings.IndexByte(pair, '&'); end >= 0 {
			pair = pair[:end]
		}
		if key, _, ok := strings.Cut(pair, "="); ok && isPasswordKey(key) {
			spans = append(spans, span{p + 1 + len(key) + 1, p + 1 + len(pair)})
		}
	}
	return spans
}

// isPasswordKey reports whether a (percent-encoded) URL query key names a password.
func isPasswordKey(key string) bool {
	if k, err := url.QueryUnescape(key); err == nil {
		key = k
	}
	key = strings.ToLower(strings.TrimSpace(key))
	return key == "password" || key == "sslpassword"
}

// keywordSecrets returns the password ranges of s, a keyword/value
// connection string: the values of password and sslpassword. When s does not
// parse, everything after the first password keyword (with or without its
// '=') is taken to be secret, and so is any user:password@ in it.
func keywordSecrets(s string) []span {
	pairs, ok := splitKeywords(s)
	if !ok {
		spans := userinfoTokens(s)
		if loc := passwordWord.FindStringIndex(s); loc != nil && loc[1] < len(s) {
			spans = append(spans, span{loc[1], len(s)})
		}
		return spans
	}
	var spans []span
	for _, p := range pairs {
		if k := strings.ToLower(p.key); k == "password" || k == "sslpassword" {
			spans = append(spans, p.value)
		}
	}
	return spans
}

// keyword is one keyword=value of a keyword/value connection string; value
// is the range of the value as written (with its quotes).
type keyword struct {
	key   string
	value span
}

// splitKeywords splits s into its keyword=value settings with libpq's
// rules: white space around '=' and between settings, values quoted with
// single quotes or ending at white space, a backslash escaping the next
// character. It reports false when libpq would refuse s.
func splitKeywords(s string) ([]keyword, bool) {
	var out []keyword
	i := 0
	for {
		i = skipASCIISpace(s, i)
		if i == len(s) {
			return out, true
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			return nil, false
		}
		key := strings.Trim(s[i:i+eq], " \t\n\r\v\f")
		if key == "" || strings.ContainsAny(key, " \t\n\r\v\f") {
			return nil, false
		}
		i = skipASCIISpace(s, i+eq+1)
		start := i
		if i < len(s) && s[i] == '\'' {
			for i++; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if i >= len(s) {
				return nil, false // unterminated
			}
			i++ // the closing quote
		} else {
			for ; i < len(s) && !isASCIISpace(s[i]); i++ {
				if s[i] == '\\' {
					i++
				}
			}
			i = min(i, len(s)) // a trailing backslash
		}
		out = append(out, keyword{key: key, value: span{start, i}})
	}
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func skipASCIISpace(s string, i int) int {
	for i < len(s) && isASCIISpace(s[i]) {
		i++
	}
	return i
}

// otherSecrets returns the password ranges of s, a connection string that
// is neither a postgres:// URL nor keyword/value: a URL without a scheme
// (user:password@host/db) or with a misspelt one (postgress://,
// postgres//). Between the first ':' after the scheme and the last '@' is
// taken to be a password, and everything after a password= keyword.
func otherSecrets(s string) []span {
	start := 0
	if m := schemeLike.FindStringIndex(s); m != nil {
		start = m[1]
	}
	var spans []span
	if at := strings.LastIndexByte(s, '@'); at >= start {
		if c := strings.IndexByte(s[start:at], ':'); c >= 0 {
			spans = append(spans, span{start + c + 1, at})
		}
	}
	for _, loc := range passwordKey.FindAllStringIndex(s, -1) {
		spans = append(spans, span{loc[1], len(s)})
	}
	return spans
}

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(spans []span) []span {
	spans = slices.Clone(spans)
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var out []span
	for _, sp := range spans {
		if n := len(out); n > 0 && sp.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// applySpans returns s with every range of spans (sorted, disjoint)
// replaced by the mask; an empty range gets the mask too (postgres://u:@h
// shows as postgres://u:***@h).
func applySpans(s string, spans []span) string {
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.start])
		b.WriteString(mask)
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// redactText masks passwords in text that embeds connection strings.
func redactText(s string) string {
	var b strings.Builder
	for {
		loc := urlStart.FindStringIndex(s)
		if loc == nil {
			b.WriteString(redactWords(s))
			return b.String()
		}
		b.WriteString(redactWords(s[:loc[0]]))
		s = s[loc[0]:]
		end := urlEnd(s)
		u := s[:end]
		b.WriteString(applySpans(u, mergeSpans(urlSecrets(u))))
		s = s[end:]
	}
}

// urlEnd returns the length of the URL at the start of s, in text. A URL
// ends at white space, except that in "postgres://user:pass word@host" (an
// unencoded space in the password) it runs on to the word with the '@',
// when that follows on the same line with nothing between that ends a URL
// in a message ('/', quotes, parentheses, ": ").
func urlEnd(s string) int {
	end := strings.IndexFunc(s, unicode.IsSpace)
	if end < 0 {
		return len(s)
	}
	head := s[strings.Index(s, "://")+len("://") : end]
	if strings.ContainsAny(head, "@/?") || !strings.Contains(head, ":") {
		return end
	}
	tail := s[end:]
	at := strings.IndexByte(tail, '@')
	if at < 0 {
		return end
	}
	if gap := tail[:at]; strings.ContainsAny(gap, "\r\n/`'\"()") || strings.Contains(gap, ": ") {
		return end
	}
	more := strings.IndexFunc(tail[at:], unicode.IsSpace)
	if more < 0 {
		return len(s)
	}
	return end + at + more
}

// redactWords masks, in text without URLs, the values of password= and
// sslpassword= and the passwords of user:password@host words.
func redactWords(s string) string {
	return applySpans(s, mergeSpans(userinfoTokens(s)))
}

// userinfoTokens returns the password ranges in s of password= values and
// of words (runs without white space) that read user:password@host,
// possibly after a scheme: from the first ':' to the last '@'.
func userinfoTokens(s string) []span {
	var spans []span
	for _, loc := range passwordKey.FindAllStringIndex(s, -1) {
		spans = append(spans, span{loc[1], loc[1] + valueLen(s[loc[1]:])})
	}
	for i := 0; i < len(s); {
		if isASCIISpace(s[i]) {
			i++
			continue
		}
		end := strings.IndexFunc(s[i:], func(r rune) bool { return r < 0x80 && isASCIISpace(byte(r)) })
		if end < 0 {
			end = len(s) - i
		}
		word := s[i : i+end]
		if at := strings.LastIndexByte(word, '@'); at >= 0 {
			start := schemeEnd(word[:at])
			if c := strings.IndexByte(word[start:at], ':'); c >= 0 {
				spans = append(spans, span{i + start + c + 1, i + at})
			}
		}
		i += end
	}
	return spans
}

// masked reports whether s starts with a value Redact masked already: the
// mask, then the end of s or white space, possibly after punctuation that
// closes what the value is in ("password=***): failed").
func masked(s string) bool {
	rest, ok := strings.CutPrefix(s, mask)
	if !ok {
		return false
	}
	rest = strings.TrimLeft(rest, ")]}>:;,.`'\"")
	return rest == "" || isASCIISpace(rest[0])
}

// wordScheme matches what may precede the "//" of a URL in a word of text:
// punctuation, then a scheme with or without its ':'.
var wordScheme = regexp.MustCompile(`^[^A-Za-z0-9]*[A-Za-z][A-Za-z0-9+.\-]*:?$`)

// schemeEnd returns the index in userinfo (a word of text up to its '@')
// after the "//" of its URL scheme ("(postgress://", "postgres//"), or 0.
func schemeEnd(userinfo string) int {
	if i := strings.Index(userinfo, "//"); i >= 0 && wordScheme.MatchString(userinfo[:i]) {
		return i + len("//")
	}
	return 0
}

// valueLen returns the length of the keyword/value value at the start of s,
// in text. Values quoted with single or double quotes run to the closing
// quote (double quotes mean nothing to libpq, but a password may be written
// so by mistake) or, unterminated, to the end of s; others end at white
// space. A backslash escapes the next character.
func valueLen(s string) int {
	if masked(s) {
		return len(mask)
	}
	var quote byte
	i := 0
	if strings.HasPrefix(s, "'") || strings.HasPrefix(s, `"`) {
		quote = s[0]
		i = 1
	}
	for i < len(s) {
		switch c := s[i]; {
		case c == '\\':
			i += 2
			continue
		case quote != 0 && c == quote:
			return i + 1
		case quote == 0 && isASCIISpace(c):
			return i
		}
		i++
	}
	return len(s)
}

// minSecretLen is the shortest secret searched for in free text: masking a
// shorter one would garble the message without hiding much.
const minSecretLen = 4

// maskReason returns why, pgx's or the server's reason for refusing
// connString, with Redact applied and the secrets of connString (and
// password, as pgx used it: possibly from PGPASSWORD or a password file)
// masked wherever they appear. pgx's messages should not quote them, but in
// a malformed string a password can land anywhere — in a setting name the
// server quotes, in the quoted pieces of pgx's parse errors (`invalid port
// "..."`, `missing "=" after "..."`) — so this also masks every quoted piece
// of connString that overlaps a secret, and every word of a secret (a run of
// letters and digits) of 4 or more characters, or 3 when connString did not
// parse.
func maskReason(why, connString, password string, parsed bool) string {
	_, spans := redactConnString(connString)
	secrets := append(secretTexts(connString, spans), password)
	why = maskQuoted(Redact(why), connString, spans)
	why = maskAll(why, secrets, minSecretLen)
	minWord := minSecretLen
	if !parsed {
		minWord = 3
	}
	return maskAll(why, secretWords(secrets), minWord)
}

// secretTexts returns the text of the spans of connString, as written and
// decoded (percent-encoding, keyword/value quotes and backslashes).
func secretTexts(connString string, spans []span) []string {
	var out []string
	for _, sp := range spans {
		raw := connString[sp.start:sp.end]
		unquoted := raw
		if len(raw) >= 2 && raw[0] == '\'' && raw[len(raw)-1] == '\'' {
			unquoted = raw[1 : len(raw)-1]
		}
		unescaped := strings.NewReplacer(`\\`, `\`, `\`, ``).Replace(unquoted)
		decoded := raw
		if d, err := url.PathUnescape(raw); err == nil {
			decoded = d
		}
		out = append(out, raw, unquoted, unescaped, decoded)
	}
	return out
}

// secretWords returns the runs of letters and digits in secrets.
func secretWords(secrets []string) []string {
	var out []string
	for _, s := range secrets {
		out = append(out, strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })...)
	}
	return out
}

// maskAll replaces in msg every occurrence of the secrets at least minLen
// bytes long, longest first.
func maskAll(msg string, secrets []string, minLen int) string {
	secrets = slices.Clone(secrets)
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, s := range secrets {
		if len(s) >= minLen && s != mask {
			msg = strings.ReplaceAll(msg, s, mask)
		}
	}
	return msg
}

// maskQuoted masks the text of every double-quoted piece of msg that
// occurs in connString overlapping one of spans. pgx quotes with %q, so a
// piece is also looked for unquoted.
func maskQuoted(msg, connString string, spans []span) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(msg, '"')
		if open < 0 {
			b.WriteString(msg)
			return b.String()
		}
		end := closingQuote(msg, open+1)
		if end < 0 {
			b.WriteString(msg)
			return b.String()
		}
		piece := msg[open+1 : end]
		b.WriteString(msg[:open+1])
		if overlapsSecret(connString, piece, spans) {
			b.WriteString(mask)
		} else {
			b.WriteString(piece)
		}
		b.WriteByte('"')
		msg = msg[end+1:]
	}
}

// closingQuote returns the index of the '"' that closes a quoted piece
// starting at from in s (one not escaped by a backslash), or -1.
func closingQuote(s string, from int) int {
	for i := from; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// overlapsSecret reports whether piece, or its %q-unquoted form, occurs in
// connString at a place that overlaps one of spans.
func overlapsSecret(connString, piece string, spans []span) bool {
	candidates := []string{piece}
	if u, err := strconv.Unquote(`"` + piece + `"`); err == nil && u != piece {
		candidates = append(candidates, u)
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		for from := 0; ; {
			i := strings.Index(connString[from:], c)
			if i < 0 {
				break
			}
			start := from + i
			for _, sp := range spans {
				if start < max(sp.end, sp.start+1) && sp.start < start+len(c) {
					return true
				}
			}
			from = start + 1
		}
	}
	return false
}
