package commands

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"trail/logfmt"
	"trail/store"
)

// The four report formats of validate-log. Each is exact on stdout; the
// text and github formats send lines about files that could not be read
// to stderr, like every other trail error.

// entries counts lines the way the summary says it.
func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

// summary is "valid (N entries)" or "N errors, M warnings (N entries)".
func summary(r *logfmt.Report) string {
	if r.Errors == 0 && r.Warnings == 0 {
		return fmt.Sprintf("valid (%s)", entries(r.Entries))
	}
	return fmt.Sprintf("%s, %s (%s)", plural(r.Errors, "error"), plural(r.Warnings, "warning"), entries(r.Entries))
}

func writeValidationText(out, errOut io.Writer, results []logResult, quiet bool) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	for _, r := range results {
		if r.Report == nil {
			w.Flush()
			reportError(errOut, fmt.Errorf("%s: %w", errorName(r.Name), r.Err), time.Time{})
			continue
		}
		if !quiet {
			fmt.Fprintf(w, "%s: %s\n", safeLine(r.Name), summary(r.Report))
		}
		for _, is := range r.Report.Issues {
			// a message quotes the log's own ids and paths: escaped, as
			// every view of a session for people is (safe_text.go)
			fmt.Fprintf(w, "%s:%d: %s %s: %s\n", safeLine(r.Name), is.Line, is.Severity, is.Code, safeLine(oneLine(is.Message)))
		}
		if r.Report.Dropped > 0 && !quiet {
			fmt.Fprintf(w, "%s: %s not shown\n", safeLine(r.Name), plural(r.Report.Dropped, "more issue"))
		}
	}
}

func writeValidationJSON(out io.Writer, results []logResult) error {
	files := make([]any, 0, len(results))
	totalErr, totalWarn, valid := 0, 0, true
	for _, r := range results {
		if r.Report == nil {
			valid = false
			files = append(files, logfmt.Object{
				logfmt.F("file", r.Name), logfmt.F("valid", false), logfmt.F("missing", r.Missing),
				logfmt.F("error", oneLine(r.Err.Error())),
			})
			continue
		}
		rep := r.Report
		issues := make([]any, len(rep.Issues))
		for i, is := range rep.Issues {
			issues[i] = is.Object()
		}
		totalErr += rep.Errors
		totalWarn += rep.Warnings
		valid = valid && rep.Valid()
		o := logfmt.Object{
			logfmt.F("file", r.Name), logfmt.F("valid", rep.Valid()), logfmt.F("entries", rep.Entries),
			logfmt.F("errors", rep.Errors), logfmt.F("warnings", rep.Warnings), logfmt.F("issues", issues),
		}
		if rep.Dropped > 0 {
			o = append(o, logfmt.F("issuesNotShown", rep.Dropped))
		}
		files = append(files, o)
	}
	b, err := logfmt.Marshal(logfmt.Object{
		logfmt.F("valid", valid), logfmt.F("errors", totalErr), logfmt.F("warnings", totalWarn), logfmt.F("files", files),
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s\n", b)
	return err
}

// GitHub Actions workflow commands: the message is escaped as data, the
// file and title as properties (which also escape ':' and ',').
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghFile is the annotation's file property with its comma, "" for a log
// read from stdin (there is no file to point at). GitHub links a file by
// its path in the repository: one under GITHUB_WORKSPACE is named from
// there.
func ghFile(r logResult, workspace string) string {
	if r.Stdin {
		return ""
	}
	name := r.Name
	if workspace != "" {
		// a relative name is the working folder's, which a job's step
		// may have moved into the workspace (working-directory:)
		if abs, err := filepath.Abs(name); err == nil {
			if rel, err := filepath.Rel(workspace, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				name = filepath.ToSlash(rel)
			}
		}
	}
	return "file=" + ghProp(safeLine(name)) + ","
}

func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func writeValidationGitHub(out, errOut io.Writer, results []logResult, quiet bool, workspace string) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	for _, r := range results {
		file := ghFile(r, workspace)
		if r.Report == nil {
			fmt.Fprintf(w, "::error %stitle=%s::%s\n", file, ghProp("trail validate-log"), ghData(safeLine(oneLine(r.Err.Error()))))
			continue
		}
		for _, is := range r.Report.Issues {
			// GitHub's log view runs escape sequences as a terminal does
			fmt.Fprintf(w, "::%s %sline=%d,title=%s::%s\n", is.Severity, file, is.Line, ghProp(is.Code), ghData(safeText(is.Message)))
		}
		w.Flush()
		if !quiet {
			fmt.Fprintf(errOut, "%s: %s\n", safeLine(r.Name), summary(r.Report))
		}
	}
}

// JUnit XML: one test case per log; a log with errors fails, one that
// cannot be read is an error, warnings go to the case's system-out.
func writeValidationJUnit(out io.Writer, results []logResult) error {
	failures, errs := 0, 0
	for _, r := range results {
		switch {
		case r.Report == nil:
			errs++
		case r.Report.Errors > 0:
			failures++
		}
	}
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(w, "<testsuites name=\"trail validate-log\" tests=\"%d\" failures=\"%d\" errors=\"%d\">\n", len(results), failures, errs)
	fmt.Fprintf(w, "  <testsuite name=\"trail validate-log\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\">\n", len(results), failures, errs)
	for _, r := range results {
		fmt.Fprintf(w, "    <testcase classname=\"validate-log\" name=\"%s\">\n", xmlText(r.Name))
		switch {
		case r.Report == nil:
			fmt.Fprintf(w, "      <error message=\"%s\" type=\"LOG_NOT_READ\"></error>\n", xmlText(oneLine(r.Err.Error())))
		default:
			rep := r.Report
			var errLines, warnLines []string
			firstCode := ""
			for _, is := range rep.Issues {
				line := fmt.Sprintf("%s:%d: %s %s: %s", r.Name, is.Line, is.Severity, is.Code, oneLine(is.Message))
				if is.Severity == logfmt.SeverityError {
					if firstCode == "" {
						firstCode = is.Code
					}
					errLines = append(errLines, line)
				} else {
					warnLines = append(warnLines, line)
				}
			}
			if rep.Errors > 0 {
				fmt.Fprintf(w, "      <failure message=\"%s\" type=\"%s\">%s</failure>\n",
					xmlText(summary(rep)), xmlText(firstCode), xmlText(strings.Join(errLines, "\n")))
			}
			if len(warnLines) > 0 {
				fmt.Fprintf(w, "      <system-out>%s</system-out>\n", xmlText(strings.Join(warnLines, "\n")))
			}
		}
		fmt.Fprintf(w, "    </testcase>\n")
	}
	fmt.Fprintf(w, "  </testsuite>\n</testsuites>\n")
	return w.Flush()
}

// xmlText is encoding/xml's EscapeText, written out: the package's init
// (its tables) ran on every start of trail for the one JUnit report that
// uses it. xml_text_test.go holds the two to the same output.
func xmlText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		switch r {
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\t':
			b.WriteString("&#x9;")
		case '\n':
			b.WriteString("&#xA;")
		case '\r':
			b.WriteString("&#xD;")
		default:
			if !xmlChar(r) || (r == utf8.RuneError && width == 1) {
				b.WriteRune('\uFFFD')
			} else {
				b.WriteString(s[i-width : i])
			}
		}
	}
	return b.String()
}

// xmlChar reports whether r may appear in XML text (the Char production).
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// errorName is a log's name as an error line starts with it: a name that is
// not a file (a 10 KB argument that resolved to nothing) is cut like every
// quoted input.
func errorName(name string) string {
	if len(name) <= store.MaxQuoted {
		return name
	}
	return store.QuoteInput(name)
}
