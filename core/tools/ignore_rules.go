package tools

// Ignore-file rules, in git's gitignore syntax (gitignore(5)), which .ignore
// files share (ripgrep):
//
//   - blank lines and lines starting with "#" are skipped; "\#" and "\!"
//     start a pattern with a literal "#" or "!"
//   - trailing spaces are dropped unless escaped with "\"; a trailing "\r"
//     (a file saved with CRLF) is dropped too, as git does
//   - "!" negates: a path a previous rule ignored is searched again
//   - a trailing "/" matches folders only
//   - a pattern with a "/" at its start or middle is anchored: it matches the
//     path relative to the folder holding the ignore file; one without
//     matches a name at any depth below it
//   - "*" and "?" never match "/"; "[...]" is a class ("[!...]" or
//     "[^...]" negated, ranges, [:alpha:] and the other POSIX classes);
//     "\" escapes the next character
//   - "**/" at the start matches any folders, "/**" at the end everything
//     inside, "/**/" zero or more folders; any other "**" is a "*"
//   - in one file the last matching rule wins
//
// A pattern compiles to an RE2 regular expression (or a plain string test),
// so matching time is linear whatever an ignore file holds: the files come
// from the user's tree, not from trail. A rule that can never match (an
// unknown class, a bad range) is dropped; an unclosed "[" is literal, as
// in ripgrep.

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"trail/lazy"
)

// ignoreRule is one compiled line.
type ignoreRule struct {
	negate   bool
	dirOnly  bool
	anchored bool // matches the relative path, else the name
	literal  string
	isLit    bool           // the pattern has no wildcard: compare with literal
	suffix   string         // the pattern is "*" then suffix, a name rule ("*.log")
	re       *regexp.Regexp // otherwise
}

// parseIgnore compiles the rules of one ignore file.
func parseIgnore(data string) []ignoreRule {
	data = strings.TrimPrefix(data, "\uFEFF") // git skips a UTF-8 BOM
	var rules []ignoreRule
	for line := range strings.SplitSeq(data, "\n") {
		if r, ok := parseIgnoreLine(line); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

func parseIgnoreLine(line string) (ignoreRule, bool) {
	var r ignoreRule
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return r, false
	}
	line = trimTrailingSpaces(line)
	if line == "" {
		return r, false
	}
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return r, false
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimPrefix(line, "/")
		if line == "" {
			return r, false
		}
	}
	if !strings.ContainsAny(line, `*?[\`) {
		r.literal, r.isLit = line, true
		return r, true
	}
	// The commonest wildcard rule, "*.ext", needs no regular expression.
	if rest, ok := strings.CutPrefix(line, "*"); ok && !r.anchored && !strings.ContainsAny(rest, `*?[\`) {
		r.suffix = rest
		return r, true
	}
	expr, ok := globToRegexp(line)
	if !ok {
		return r, false
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return r, false
	}
	r.re = re
	return r, true
}

// trimTrailingSpaces drops the spaces at the end of line that no backslash
// escapes (gitignore(5)): "a\ " keeps its escaped space.
func trimTrailingSpaces(line string) string {
	end := len(line)
	for end > 0 && line[end-1] == ' ' {
		backslashes := 0
		for i := end - 2; i >= 0 && line[i] == '\\'; i-- {
			backslashes++
		}
		if backslashes%2 == 1 {
			break
		}
		end--
	}
	return line[:end]
}

// match reports whether the rule matches a path: rel relative to the
// ignore file's folder, name its last element.
func (r *ignoreRule) match(rel, name string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	subject := name
	if r.anchored {
		subject = rel
	}
	switch {
	case r.isLit:
		return subject == r.literal
	case r.re == nil:
		return strings.HasSuffix(subject, r.suffix)
	}
	return r.re.MatchString(subject)
}

// globToRegexp translates a gitignore glob (leading "/" already removed) to
// an anchored RE2 expression. ok is false for a pattern that cannot match.
func globToRegexp(g string) (string, bool) {
	var b strings.Builder
	b.WriteString(`^`)
	for i := 0; i < len(g); {
		c := g[i]
		switch {
		case c == '*':
			// A run of stars: two or more between slashes (or the ends)
			// cross folders, any other run is one "*" (git's wildmatch).
			j := i
			for j < len(g) && g[j] == '*' {
				j++
			}
			atStart := i == 0 || g[i-1] == '/'
			switch rest := g[j:]; {
			case j-i < 2 || !atStart || (rest != "" && rest[0] != '/'):
				b.WriteString(`[^/]*`)
				i = j
			case rest == "":
				// "abc/**": everything inside; "**" alone: everything.
				b.WriteString(`.*`)
				i = j
			default:
				// "**/" at the start or "/**/" inside: zero or more folders.
				b.WriteString(`(?:.*/)?`)
				i = j + 1
			}
		case c == '?':
			b.WriteString(`[^/]`)
			i++
		case c == '[':
			class, n, ok := bracketToRegexp(g[i:])
			switch {
			case n == 0:
				// Unclosed: a literal "[".
				b.WriteString(`\[`)
				i++
			case !ok:
				return "", false
			default:
				b.WriteString(class)
				i += n
			}
		case c == '\\':
			if i+1 == len(g) {
				return "", false // a trailing backslash escapes nothing: git never matches it
			}
			_, size := utf8.DecodeRuneInString(g[i+1:])
			b.WriteString(regexp.QuoteMeta(g[i+1 : i+1+size]))
			i += 1 + size
		default:
			_, size := utf8.DecodeRuneInString(g[i:])
			b.WriteString(regexp.QuoteMeta(g[i : i+size]))
			i += size
		}
	}
	b.WriteString(`$`)
	return b.String(), true
}

// posixClasses are the bracket classes git's wildmatch knows, spelled as
// RE2 ranges without "/": a class never matches a folder separator.
var posixClasses = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"alnum":  `0-9A-Za-z`,
		"alpha":  `A-Za-z`,
		"blank":  ` \t`,
		"cntrl":  `\x00-\x1f\x7f`,
		"digit":  `0-9`,
		"graph":  `!-.0-~`,
		"lower":  `a-z`,
		"print":  ` -.0-~`,
		"punct":  `!-.:-@\[-\x60{-~`,
		"space":  `\t\n\v\f\r `,
		"upper":  `A-Z`,
		"xdigit": `0-9A-Fa-f`,
	}
}}

// bracketToRegexp translates the class at the start of s ("[...]"). n is
// the bytes it spans, 0 when it is not closed; ok is false when it can
// never match.
func bracketToRegexp(s string) (expr string, n int, ok bool) {
	i := 1
	negate := false
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		negate = true
		i++
	}
	var members strings.Builder
	first := true
	for {
		if i >= len(s) {
			return "", 0, false
		}
		if s[i] == ']' && !first {
			i++
			break
		}
		first = false
		if strings.HasPrefix(s[i:], "[:") {
			end := strings.Index(s[i+2:], ":]")
			if end < 0 {
				return "", 0, false
			}
			class, known := posixClasses.Get()[s[i+2:i+2+end]]
			if !known {
				return "", i + 2 + end + 2, false
			}
			members.WriteString(class)
			i += 2 + end + 2
			continue
		}
		lo, size := bracketChar(s[i:])
		if size == 0 {
			return "", 0, false
		}
		i += size
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			var hsize int
			hi, hsize = bracketChar(s[i+1:])
			if hsize == 0 {
				return "", 0, false
			}
			i += 1 + hsize
		}
		if lo > hi {
			continue // an empty range matches nothing
		}
		writeRangeWithoutSlash(&members, lo, hi)
	}
	set := members.String()
	switch {
	case negate:
		return `[^/` + set + `]`, i, true
	case set == "":
		return "", i, false
	}
	return `[` + set + `]`, i, true
}

// bracketChar reads one (possibly escaped) character of a class.
func bracketChar(s string) (rune, int) {
	if s == "" {
		return 0, 0
	}
	if s[0] == '\\' {
		if len(s) < 2 {
			return 0, 0
		}
		r, size := utf8.DecodeRuneInString(s[1:])
		return r, 1 + size
	}
	r, size := utf8.DecodeRuneInString(s)
	return r, size
}

// writeRangeWithoutSlash adds lo-hi to an RE2 class, minus "/".
func writeRangeWithoutSlash(b *strings.Builder, lo, hi rune) {
	if lo <= '/' && '/' <= hi {
		if lo < '/' {
			writeRange(b, lo, '/'-1)
		}
		if hi > '/' {
			writeRange(b, '/'+1, hi)
		}
		return
	}
	writeRange(b, lo, hi)
}

func writeRange(b *strings.Builder, lo, hi rune) {
	b.WriteString(classChar(lo))
	if hi != lo {
		b.WriteString("-" + classChar(hi))
	}
}

// classChar spells a character for use inside an RE2 class: letters and
// digits as they are, anything else as \x{...}, which no class syntax
// can misread.
func classChar(r rune) string {
	if '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
		return string(r)
	}
	return `\x{` + strconv.FormatInt(int64(r), 16) + `}`
}
