package permission

import (
	"path/filepath"
	"strings"
)

// Here-documents. A body is text a command reads, not commands: `cat >
// Makefile <<'EOF'` with a `rm -rf build` line inside runs no rm, and
// `python3 - <<'PY'` holds Python. The body is a script only when a shell
// reads it (bash <<EOF), and then its lines are commands like any other.

// heredocShell reports whether a command's here-document is its script.
func heredocShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh":
		return true
	}
	return false
}

// stripHeredocs returns cmd without its here-document bodies, and the
// bodies a shell reads as its script.
func stripHeredocs(cmd string) (string, []string) {
	if !strings.Contains(cmd, "<<") {
		return cmd, nil
	}
	type pending struct {
		delim string
		dash  bool // <<-: the closing line may be indented with tabs
		shell bool
	}
	var out strings.Builder
	var scripts []string
	var docs []pending
	partStart := 0
	inSingle, inDouble := false, false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case inSingle:
			inSingle = c != '\''
		case c == '\\' && i+1 < len(cmd):
			out.WriteByte(c)
			i++
			c = cmd[i]
		case inDouble:
			inDouble = c != '"'
		case c == '\'':
			inSingle = true
		case c == '"':
			inDouble = true
		case c == ';' || c == '|' || c == '&' || c == '(':
			partStart = out.Len() + 1
		case c == '<' && strings.HasPrefix(cmd[i:], "<<") && !strings.HasPrefix(cmd[i:], "<<<"):
			delim, dash, n := heredocDelim(cmd[i+2:])
			if delim != "" {
				docs = append(docs, pending{delim: delim, dash: dash, shell: readsHeredoc(out.String()[min(partStart, out.Len()):])})
				out.WriteString(cmd[i : i+2+n])
				i += 1 + n
				continue
			}
		case c == '\n' && len(docs) > 0:
			out.WriteByte(c)
			rest := cmd[i+1:]
			for _, d := range docs {
				body, used := heredocBody(rest, d.delim, d.dash)
				if d.shell {
					scripts = append(scripts, body)
				}
				rest = rest[used:]
			}
			docs = nil
			i = len(cmd) - len(rest) - 1
			partStart = out.Len()
			continue
		}
		if c == '\n' {
			partStart = out.Len() + 1
		}
		out.WriteByte(c)
	}
	return out.String(), scripts
}

// heredocDelim reads the delimiter word after <<: its text with quotes
// removed, whether it was <<-, and how many bytes it took ("" when none).
func heredocDelim(s string) (string, bool, int) {
	i := 0
	dash := strings.HasPrefix(s, "-")
	if dash {
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	var b strings.Builder
	for i < len(s) && !strings.ContainsRune(" \t\n;|&<>()", rune(s[i])) {
		switch c := s[i]; c {
		case '\'', '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return "", false, 0
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 2
		case '\\':
			if i+1 < len(s) {
				b.WriteByte(s[i+1])
			}
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), dash, min(i, len(s))
}

// heredocBody is the body up to the line that is delim (tabs before it
// dropped for <<-), and the bytes it took with that line; the rest of the
// input when the closing line never comes, as a shell reads it.
func heredocBody(s, delim string, dash bool) (string, int) {
	used := 0
	var body []string
	for used < len(s) {
		line, _, found := strings.Cut(s[used:], "\n")
		next := used + len(line)
		if found {
			next++
		}
		check := line
		if dash {
			check = strings.TrimLeft(check, "\t")
		}
		if check == delim {
			return strings.Join(body, "\n"), next
		}
		body = append(body, line)
		used = next
	}
	return strings.Join(body, "\n"), used
}

// readsHeredoc reports whether the command before a << is a shell that
// runs its here-document (bash <<EOF, not bash -c '...' <<EOF).
func readsHeredoc(command string) bool {
	toks, broken := tokens(stripPrefix(strings.TrimSpace(command), true))
	if broken || len(toks) == 0 || !heredocShell(filepath.Base(toks[0].text)) {
		return false
	}
	for _, t := range toks[1:] {
		if t.redir == "" && strings.HasPrefix(t.text, "-") && !strings.HasPrefix(t.text, "--") && strings.Contains(t.text, "c") {
			return false
		}
	}
	return true
}
