package commands

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"

	"trail/core"
	"trail/core/errs"
	"trail/logfmt"
	"trail/store"
)

// ListOptions is trail list after flag parsing.
type ListOptions struct {
	IO      *IOStreams
	Deps    *Deps
	Globals globals
	JSON    bool
	JSONL   bool
	Header  bool
	Cwd     string // filter: sessions of this directory
	Status  string
	Limit   int
	// LimitSet: --limit was given; else a terminal shows tableRows.
	LimitSet bool
	// Since keeps sessions updated within it, when HasSince: "--since 0s"
	// is a filter that keeps (almost) nothing, not no filter.
	Since    time.Duration
	HasSince bool
}

func newListCmd(d *Deps, runF func(context.Context, *ListOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list stored sessions, newest first",
		Description: "On a terminal: a table that fits its width, newest first, 30 rows unless --limit says\n" +
			"otherwise, with short ids (the characters any command takes for the session).\n" +
			"Piped: every row, tab-separated (full id, updated, status, messages, name or first\n" +
			"prompt, cwd), no header unless --header. --json and --jsonl add shortId.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "a JSON array of every header field"},
			&cli.BoolFlag{Name: "jsonl", Usage: "one JSON object a line"},
			&cli.BoolFlag{Name: "header", Usage: "print a header line when piped"},
			&cli.BoolFlag{Name: "here", Usage: "only sessions of the current directory"},
			&cli.StringFlag{Name: "cwd", Usage: "only sessions of `DIR`"},
			&cli.StringFlag{Name: "status", Usage: "only sessions with status `S` (idle, running, requires_action, terminated, corrupt)"},
			&cli.IntFlag{Name: "limit", Usage: "at most `N` sessions (0: all; default: 30 on a terminal, all when piped)"},
			&cli.StringFlag{Name: "since", Usage: "only sessions updated within `DUR` (90m, 36h, 7d)"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			g, err := readGlobals(c, d)
			if err != nil {
				return err
			}
			o := &ListOptions{IO: d.IO, Deps: d, Globals: g, JSON: c.Bool("json"), JSONL: c.Bool("jsonl"),
				Header: c.Bool("header"), Status: c.String("status"), Limit: c.Int("limit"), LimitSet: c.IsSet("limit")}
			if o.JSON && o.JSONL {
				return errs.Usagef("give one of them", "--json and --jsonl both given")
			}
			if o.Limit < 0 {
				return errs.Usagef("give 0 (no limit) or more", "--limit must not be negative")
			}
			if err := checkStatus(o.Status); err != nil {
				return err
			}
			if c.Bool("here") {
				if o.Cwd, err = d.Getwd(); err != nil {
					return err
				}
			}
			if dir := c.String("cwd"); dir != "" {
				if o.Cwd, err = filepath.Abs(dir); err != nil {
					return err
				}
			}
			if s := c.String("since"); s != "" {
				if o.Since, err = parseAge(s); err != nil {
					return &errs.UsageError{Msg: "--since", Err: err}
				}
				o.HasSince = true
			}
			return runF(c.Context, o)
		},
	}
}

func runList(_ context.Context, o *ListOptions) error {
	st := o.Deps.openStore(o.Globals.Home)
	heads, err := st.ListHeads()
	if err != nil {
		return err
	}
	// A record says running only between the rounds a step saves; a step
	// holds the session's lock from start to end (SPEC 5.4).
	// A first step saves its record at its end: until then the session
	// is only its lock and log, and listed running with what is known.
	// A record a killed step left says running with no step holding its
	// lock: it is idle, as the next step will find it, and a script
	// waiting for running to end goes on.
	running, _ := st.RunningIDs()
	for i := range heads {
		// A session that looks killed (a log with no record, a record
		// saying running) gets a second look at its lock: the table hides
		// a holder in another PID namespace, and without /proc there is
		// no table (store.FS.LockHeld).
		if h := heads[i]; !running[h.ID] && (h.LogOnly || h.Status == core.StatusRunning) {
			if st.LockHeld(h.ID) {
				if running == nil {
					running = map[string]bool{}
				}
				running[h.ID] = true
			}
		}
		switch {
		case running[heads[i].ID]:
			delete(running, heads[i].ID)
			switch {
			case heads[i].LogOnly: // a first step before its first save: what its log says
				h := &heads[i]
				h.Path, h.Status, h.Corrupt, h.LogOnly, h.Err = st.RecordPath(h.ID), core.StatusRunning, false, false, nil
			case !heads[i].Corrupt:
				heads[i].Status = core.StatusRunning
			}
		case heads[i].Status == core.StatusRunning:
			heads[i].Status = core.StatusIdle
		}
	}
	for id := range running {
		heads = append(heads, store.Head{ID: id, Path: st.RecordPath(id), Status: core.StatusRunning})
	}
	now := o.Deps.Now()
	for _, h := range heads {
		switch {
		case h.LogOnly:
			// Robota lists such a session from its log; trail needs the
			// record back first, and says how.
			linef(o.IO.ErrOut, "trail: warning: session %s has a log but no record (%s)\nhint: %s\n", h.ID, h.Path, logOnlyFix(h.ID))
		case h.Corrupt:
			linef(o.IO.ErrOut, "trail: warning: session record %s is corrupt: %v\n", h.Path, h.Err)
		}
	}
	for _, p := range st.Strays() {
		// never passed over in silence (SPEC 1.6), nor taken for a session
		linef(o.IO.ErrOut, "trail: warning: %s is no session record of this home: its name is no session id; left alone\n", p)
	}
	// Short ids are unique among all the sessions, not the ones shown:
	// any of them must name one session wherever it is typed. The TSV
	// has no column for them.
	table := !o.JSON && !o.JSONL && o.IO.IsStdoutTTY()
	var short map[string]string
	if table || o.JSON || o.JSONL {
		short = core.ShortIDs(heads)
	}
	heads = filterHeads(heads, o, now)
	sortHeads(heads)
	total := len(heads)
	limit := o.Limit
	if table && !o.LimitSet {
		limit = tableRows
	}
	if limit > 0 && len(heads) > limit {
		heads = heads[:limit]
	}
	if table {
		// A screenful, with its footer on stderr after it: unbuffered.
		return writeHeadsTable(o, heads, total, short, now)
	}
	// One write for the whole listing, not one per line: ten thousand
	// sessions into a pipe were ten thousand write calls.
	orig := o.IO.Out
	out := bufio.NewWriterSize(orig, 64<<10)
	o.IO.Out = out
	defer func() {
		_ = out.Flush() // a reader gone away is not list's failure, as before
		o.IO.Out = orig
	}()
	switch {
	case o.JSON:
		return writeHeadsJSON(o, heads, short)
	case o.JSONL:
		for _, h := range heads {
			b, err := logfmt.Marshal(headObject(h, short[h.ID]))
			if err != nil {
				return err
			}
			fmt.Fprintf(o.IO.Out, "%s\n", b)
		}
		return nil
	}
	return writeHeadsTSV(o, heads)
}

func filterHeads(heads []store.Head, o *ListOptions, now time.Time) []store.Head {
	out := heads[:0]
	var here *store.DirMatcher
	if o.Cwd != "" {
		here = store.NewDirMatcher(o.Cwd)
	}
	for _, h := range heads {
		if here != nil && !here.Match(h.Cwd) {
			continue
		}
		if o.Status != "" && headStatus(h) != o.Status {
			continue
		}
		if o.HasSince {
			t, err := time.Parse(time.RFC3339Nano, h.UpdatedAt)
			if err != nil || now.Sub(t) > o.Since {
				continue
			}
		}
		out = append(out, h)
	}
	return out
}

// sortHeads orders newest first; corrupt records (no trustworthy time) last.
func sortHeads(heads []store.Head) {
	sort.SliceStable(heads, func(i, j int) bool {
		// A session with only its log, or a record that does not parse,
		// has its log's time and sorts by it; one with neither has none
		// and comes last.
		a, b := heads[i], heads[j]
		if a.UpdatedAt != b.UpdatedAt {
			return a.UpdatedAt > b.UpdatedAt
		}
		return a.ID > b.ID
	})
}

// listStatuses are the statuses list shows (SPEC 5.4's and corrupt).
func listStatuses() []string {
	return []string{core.StatusIdle, core.StatusRunning, core.StatusRequiresAction, core.StatusTerminated, "corrupt"}
}

// checkStatus refuses a --status no session can have: a misspelt one
// would list nothing and exit 0, as if there were no such sessions.
func checkStatus(status string) error {
	if status == "" || slices.Contains(listStatuses(), status) {
		return nil
	}
	hint := "statuses: " + strings.Join(listStatuses(), ", ")
	if s := suggest(status, listStatuses()); s != "" {
		hint = fmt.Sprintf("did you mean --status %s? %s", s, hint)
	}
	return errs.Usagef(hint, "unknown status %s", store.QuoteInput(status))
}

func headStatus(h store.Head) string {
	switch {
	case h.Corrupt:
		return "corrupt"
	case h.Status == "":
		return core.StatusIdle
	}
	return h.Status
}

// headLabel is the name, else the title, else the first prompt, on one
// line, escaped for a terminal (safe_text.go), cut to 50 runes. Its
// spaces are made single before escaping, so a prompt's newline reads as
// a space, not as \n; the cut comes after, so an escape counts its width.
func headLabel(h store.Head) string {
	for _, s := range []string{h.Name, h.Title, h.FirstPrompt} {
		if strings.TrimSpace(s) != "" {
			s = oneLineCut(s, 50)
			if safe := safeLine(s); len(safe) != len(s) {
				return cutEnd(safe, 50)
			}
			return s
		}
	}
	return ""
}

func oneLineCut(s string, n int) string {
	if oneLineAlready(s, n) {
		return s // most names and titles: no copy (list writes thousands)
	}
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// oneLineAlready reports whether oneLineCut would return s as it is: at
// most n runes, spaces single and only between words.
func oneLineAlready(s string, n int) bool {
	runes, prevSpace := 0, true // a leading space is not kept
	for _, r := range s {
		if runes++; runes > n {
			return false
		}
		space := unicode.IsSpace(r)
		if space && (r != ' ' || prevSpace) {
			return false
		}
		prevSpace = space
	}
	return !prevSpace || s == ""
}

// headObject is one session of --json and --jsonl: every header field,
// and shortId, what any command takes for the session.
func headObject(h store.Head, shortID string) logfmt.Object {
	if h.LogOnly {
		o := logfmt.Object{logfmt.F("id", h.ID), logfmt.F("shortId", shortID), logfmt.F("status", "corrupt"), logfmt.F("logOnly", true),
			logfmt.F("path", h.Path), logfmt.F("error", h.Err.Error()), logfmt.F("fix", logOnlyFix(h.ID))}
		// what its log says of it (store.fillFromLog), when it says it
		for _, f := range [][2]string{{"name", h.Name}, {"cwd", h.Cwd}, {"createdAt", h.CreatedAt}, {"updatedAt", h.UpdatedAt}, {"title", h.Title}, {"firstPrompt", h.FirstPrompt}} {
			if f[1] != "" {
				o = append(o, logfmt.F(f[0], f[1]))
			}
		}
		if h.Provider != nil {
			o = append(o, logfmt.F("provider", h.Provider))
		}
		return o
	}
	if h.Corrupt {
		msg := ""
		if h.Err != nil {
			msg = h.Err.Error()
		}
		return logfmt.Object{logfmt.F("id", h.ID), logfmt.F("shortId", shortID), logfmt.F("status", "corrupt"), logfmt.F("path", h.Path), logfmt.F("error", msg)}
	}
	o := logfmt.Object{logfmt.F("id", h.ID), logfmt.F("shortId", shortID)}
	add := func(k, v string) {
		if v != "" {
			o = append(o, logfmt.F(k, v))
		}
	}
	add("name", h.Name)
	o = append(o, logfmt.F("cwd", h.Cwd), logfmt.F("createdAt", h.CreatedAt), logfmt.F("updatedAt", h.UpdatedAt))
	if h.Version != 0 {
		o = append(o, logfmt.F("version", h.Version))
	}
	o = append(o, logfmt.F("status", headStatus(h)))
	add("stopReason", h.StopReason)
	if h.Provider != nil {
		o = append(o, logfmt.F("provider", h.Provider))
	}
	o = append(o, logfmt.F("messageCount", h.MessageCount))
	add("title", h.Title)
	add("parentSessionId", h.ParentSessionID)
	if h.Usage != nil {
		o = append(o, logfmt.F("usage", h.Usage))
	}
	if h.Title == "" && h.FirstPrompt != "" {
		o = append(o, logfmt.F("firstPrompt", oneLineCut(h.FirstPrompt, 80)))
	}
	return o
}

// logOnlyFix is the way back for a session that has only its log.
func logOnlyFix(id string) string {
	return "trail replay " + id + " --write-record rebuilds the record from its log (or trail delete " + id + " removes the log)"
}

func writeHeadsJSON(o *ListOptions, heads []store.Head, short map[string]string) error {
	arr := make([]any, len(heads))
	for i, h := range heads {
		arr[i] = headObject(h, short[h.ID])
	}
	b, err := logfmt.Marshal(arr)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "%s\n", b)
	return nil
}

func writeHeadsTSV(o *ListOptions, heads []store.Head) error {
	if o.Header {
		fmt.Fprintln(o.IO.Out, "id\tupdated\tstatus\tmessages\tname\tcwd")
	}
	// Every field read from a record is escaped (safe_text.go): a tab,
	// newline or CR in one would split the row or shift its columns, and
	// an ESC would reach a terminal the pipe ends on. The id is a file
	// name the store has validated.
	var line []byte
	for _, h := range heads {
		line = append(line[:0], h.ID...)
		line = append(append(line, '\t'), safeLine(h.UpdatedAt)...)
		line = append(append(line, '\t'), safeLine(headStatus(h))...)
		line = strconv.AppendInt(append(line, '\t'), int64(h.MessageCount), 10)
		line = append(append(line, '\t'), headLabel(h)...)
		line = append(append(line, '\t'), safeLine(h.Cwd)...)
		if _, err := o.IO.Out.Write(append(line, '\n')); err != nil {
			return nil // a reader gone away is not list's failure
		}
	}
	return nil
}
