package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Head is what list shows of a record, read without loading its messages.
type Head struct {
	ID, Name, Cwd, CreatedAt, UpdatedAt, Status, StopReason, Title, ParentSessionID string
	Version, MessageCount                                                           int
	Provider                                                                        *ProviderRef
	Usage                                                                           *Usage
	FirstPrompt                                                                     string // first user message's text, only when Title is empty
	Corrupt                                                                         bool
	LogOnly                                                                         bool  // Corrupt because only the log exists (Path is the log)
	Err                                                                             error // why Corrupt: a *CorruptError, or the I/O error that stopped the read
	Path                                                                            string
	Size                                                                            int64

	countAt string // the updatedAt messageCount was computed for (messageCountAt)
}

// A trail record keeps its header in the first few hundred bytes (SPEC 3.2),
// so list reads headWindow bytes from the front and tailWindow from the end
// instead of the whole file.
const (
	headWindow = 4 << 10
	tailWindow = 64
	// A single-line record smaller than this is validated in full: cheap,
	// and such files are not trail's own.
	fullCheckLimit = 1 << 20
)

// readHead reads the head of the record at path; gone reports that the file
// does not exist. Head.ID is the file's id, the name callers can Load by,
// even if the record says otherwise inside. win is scratch space of
// headWindow+tailWindow bytes, reused across calls by one goroutine.
//
// A record of up to headWindow bytes costs an open, one read and a close;
// a bigger one an fstat and a read of its last bytes besides (is it whole?).
// Only a record not in trail's layout, or damaged, is read further.
func readHead(path, id string, win []byte) (h Head, gone bool) {
	h = Head{ID: id, Path: path}
	f, err := openHead(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, true
	}
	if err != nil {
		return h.corrupt(noFollow(path, err)), false
	}
	defer f.close()
	if statFirst {
		if _, mode, err := f.stat(); err != nil || !mode.IsRegular() {
			return h.notRegular(f, err), false
		}
	}
	n, err := f.readAt(win[:headWindow], 0)
	if err != nil {
		return h.notRegular(f, err), false
	}
	if n < headWindow {
		// The whole record, validated in full: small, and cheap.
		h.Size = int64(n)
		if err := h.fromRecord(win[:n]); err != nil {
			return h.notRegular(f, err), false
		}
		return h, false
	}
	size, mode, err := f.stat()
	if err != nil || !mode.IsRegular() {
		return h.notRegular(f, err), false
	}
	h.Size = size
	if size <= headWindow {
		// Exactly headWindow bytes (or shrunk since the read, which a
		// record saved by rename cannot do).
		return h.fromFile(f), false
	}
	if _, err := f.readAt(win[headWindow:], h.Size-tailWindow); err != nil {
		return h.corrupt(err), false
	}
	head, tail := win[:headWindow], bytes.TrimRight(win[headWindow:], " \t\r\n")
	var closed bool
	switch {
	case bytes.IndexByte(head, '\n') >= 0:
		// Indented: only the top-level object closes at column 0.
		closed = bytes.HasSuffix(tail, []byte("\n}"))
	case h.Size < fullCheckLimit:
		closed = false // check it in full below
	default:
		closed = bytes.HasSuffix(tail, []byte("}"))
	}
	base := h
	if closed && h.fromWindow(head) {
		return h, false
	}
	// Not trail's layout, or damaged: the whole file decides, and gives a
	// corrupt record its exact error offset. A big one is scanned in
	// fixed chunks, never held whole.
	if h.Size >= fullCheckLimit {
		return base.fromScan(f), false
	}
	return base.fromFile(f), false
}

// notRegular is the head of a record whose read failed with err (or whose
// content did not parse): a NotRegularError when the file turns out to be
// a FIFO, a folder, a device or a socket, else err as it is.
func (h Head) notRegular(f headFile, err error) Head {
	if _, mode, serr := f.stat(); serr == nil && !mode.IsRegular() {
		return h.corrupt(&NotRegularError{Path: h.Path, Kind: FileKind(mode)})
	} else if err == nil {
		err = serr
	}
	return h.corrupt(err)
}

func (h Head) corrupt(err error) Head {
	h.Corrupt, h.Err = true, err
	return h
}

// fromWindow fills h from the first bytes of a record and reports whether
// they held the whole header: every member before the first non-header key
// (trail writes messages after the header) with id, updatedAt, messageCount
// and title among them. A foreign record (Robota writes messages early and
// has no messageCount) answers false.
func (h *Head) fromWindow(win []byte) bool {
	// A view of win, not a copy of 8 KiB per record: nothing parsed here
	// outlives the call (set clones the strings it keeps).
	// Cut at the first member that is not the header: gjson parses a
	// member's value before it shows the key, and that value is the
	// messages, the rest of the window. The cut member is still seen by
	// nextKeyNotHeader below.
	cut := win[:headerEnd(win)]
	root := gjson.Parse(unsafe.String(unsafe.SliceData(cut), len(cut)))
	if !root.IsObject() {
		return false
	}
	complete := false
	end := -1 // where the last member gjson gave us ends
	var seen uint
	var serr *shapeError
	root.ForEach(func(k, v gjson.Result) bool {
		// gjson reads past what is not JSON between members (a doubled
		// brace, a missing comma or colon, a NUL): what lies between the
		// tokens it gave must be JSON's punctuation, else the file decides.
		header := isHeaderKey(k.Str)
		if !punctuated(win, end, k, v, header) {
			return false
		}
		if !header {
			complete = true
			return false
		}
		// The window is not validated as a whole: check the shape of a
		// member only once gjson says that member alone is valid JSON,
		// else let the whole file decide.
		if v.Index <= 0 || v.Index+len(v.Raw) > len(win) {
			return false // gjson did not place the value: let the file decide
		}
		raw := win[v.Index : v.Index+len(v.Raw)]
		if string(raw) != v.Raw || !gjson.ValidBytes(raw) {
			return false
		}
		if serr = checkTopMember(raw, k.Str, 0); serr != nil {
			serr.off += v.Index
			return false
		}
		seen |= h.set(k.Str, v)
		end = v.Index + len(v.Raw)
		return true
	})
	if serr != nil {
		// A header value of the wrong type: the record is corrupt, whatever
		// the rest holds.
		h.Corrupt, h.Err = true, serr.corrupt(h.Path)
		return true
	}
	// gjson parses a member's value before it shows us the key, so when the
	// member after the header is a string cut off by the window (a long
	// systemPrompt, say) it stops without a word. The key is all we need.
	if !complete && end > 0 {
		complete = nextKeyNotHeader(win, end)
	}
	const need = seenID | seenUpdatedAt | seenMessageCount | seenTitle
	// A count not stamped with this updatedAt may be stale (another
	// program saved the record since): the whole file counts instead.
	fresh := h.countAt != "" && h.countAt == h.UpdatedAt
	h.countAt = ""
	return complete && seen&need == need && fresh
}

// punctuated reports whether member k: v of the window's top object sits
// in valid JSON: after the previous member's end (prev; -1 for the first
// member, which follows the opening brace) comes a comma, then the key, a
// valid string, then (withValue: the value is one the window holds) a
// colon and the value. Only whitespace may lie between them.
func punctuated(win []byte, prev int, k, v gjson.Result, withValue bool) bool {
	ks, ke := k.Index, k.Index+len(k.Raw)
	if ks <= 0 || ke > len(win) || string(win[ks:ke]) != k.Raw || !gjson.Valid(k.Raw) {
		return false
	}
	lead := byte(',')
	if prev < 0 {
		prev, lead = 0, '{'
	}
	if prev > ks || !onlyAround(win[prev:ks], lead) {
		return false
	}
	return !withValue || ke <= v.Index && v.Index <= len(win) && onlyAround(win[ke:v.Index], ':')
}

// onlyAround reports whether b is c with JSON whitespace around it.
func onlyAround(b []byte, c byte) bool {
	seen := false
	for _, x := range b {
		switch {
		case x == ' ' || x == '\t' || x == '\n' || x == '\r':
		case x == c && !seen:
			seen = true
		default:
			return false
		}
	}
	return seen
}

// headerEnd is where the first top-level key that is not a header key
// starts in win, or len(win) when it cannot tell (the window is not
// validated: anything unexpected leaves the whole window to gjson).
func headerEnd(win []byte) int {
	i := skipSpace(win, 0)
	if i >= len(win) || win[i] != '{' {
		return len(win)
	}
	i++
	for {
		if i = skipSpace(win, i); i >= len(win) || win[i] != '"' {
			return len(win)
		}
		k, err := scanString(win, i)
		if err != nil || !isHeaderKey(unescapeKey(win[i:k])) {
			if err == nil {
				return i
			}
			return len(win)
		}
		if i = skipSpace(win, k); i >= len(win) || win[i] != ':' {
			return len(win)
		}
		if i = skipSpace(win, i+1); i >= len(win) {
			return len(win)
		}
		if i = endOfValue(win, i); i >= len(win) {
			return len(win)
		}
		if i = skipSpace(win, i); i >= len(win) || win[i] != ',' {
			return len(win)
		}
		i++
	}
}

// nextKeyNotHeader reports whether win[i:] is `, "key"` with a key that is
// not a header key. The window is not validated, so this checks every step.
func nextKeyNotHeader(win []byte, i int) bool {
	if i = skipSpace(win, i); i >= len(win) || win[i] != ',' {
		return false
	}
	if i = skipSpace(win, i+1); i >= len(win) || win[i] != '"' {
		return false
	}
	j, err := scanString(win, i)
	if err != nil {
		return false
	}
	return !isHeaderKey(gjson.ParseBytes(win[i:j]).Str)
}

const (
	seenID uint = 1 << iota
	seenUpdatedAt
	seenMessageCount
	seenTitle
)

// set stores one header member, leniently: a value of the wrong type is
// ignored. It returns the seen bit for the members fromWindow requires.
// Strings are cloned: gjson's point into the whole file's text, and ten
// thousand heads must not keep ten thousand files alive.
func (h *Head) set(key string, v gjson.Result) uint {
	str := func(dst *string) {
		if v.Type == gjson.String {
			*dst = strings.Clone(v.Str)
		}
	}
	get := func(path string) string { return strings.Clone(v.Get(path).String()) }
	switch key {
	case "id":
		return seenID
	case "name":
		str(&h.Name)
	case "cwd":
		str(&h.Cwd)
	case "createdAt":
		str(&h.CreatedAt)
	case "updatedAt":
		str(&h.UpdatedAt)
		return seenUpdatedAt
	case "status":
		str(&h.Status)
	case "stopReason":
		str(&h.StopReason)
	case "title":
		str(&h.Title)
		return seenTitle
	case "parentSessionId":
		str(&h.ParentSessionID)
	case "version":
		if v.Type == gjson.Number {
			h.Version = int(v.Int())
		}
	case "messageCount":
		if v.Type == gjson.Number {
			h.MessageCount = int(v.Int())
		}
		return seenMessageCount
	case "messageCountAt":
		str(&h.countAt)
	case "provider":
		if v.IsObject() {
			h.Provider = &ProviderRef{
				Name: get("name"), Model: get("model"), BaseURL: get("baseUrl"), Script: get("script"), Cassette: get("cassette"),
			}
		}
	case "usage":
		if v.IsObject() {
			h.Usage = &Usage{InputTokens: v.Get("inputTokens").Int(), OutputTokens: v.Get("outputTokens").Int(),
				CacheReadInputTokens: v.Get("cacheReadInputTokens").Int(), CacheCreationInputTokens: v.Get("cacheCreationInputTokens").Int()}
			if c := v.Get("costUSD"); c.Type == gjson.Number {
				cost := c.Float()
				h.Usage.CostUSD = &cost
			}
		}
	}
	return 0
}

// fromFile reads and validates the whole record; MessageCount is then the
// real number of messages and FirstPrompt is found when Title is empty.
func (h Head) fromFile(f headFile) Head {
	data := make([]byte, h.Size)
	n, err := f.readAt(data, 0)
	if err != nil {
		return h.corrupt(err)
	}
	data = data[:n] // the file may have shrunk since Stat
	if err := h.fromRecord(data); err != nil {
		return h.corrupt(err)
	}
	return h
}

func (h *Head) fromRecord(data []byte) error {
	if err := checkRecord(data, h.Path); err != nil {
		return err
	}
	start := skipSpace(data, 0)
	if data[start] != '{' {
		return &CorruptError{Path: h.Path, Offset: int64(start), Err: errors.New("record is not a JSON object")}
	}
	var cerr error
	n, lookForPrompt := -1, true
	walkObject(data, start, func(key string, off int) (int, bool) {
		if key == "messages" || key == "history" {
			if data[off] != '[' {
				cerr = &CorruptError{Path: h.Path, Offset: int64(off), Err: fmt.Errorf("%q is not an array", key)}
				return 0, false
			}
			count := 0
			var serr *shapeError
			end := walkArrayAt(data, off, func(eoff, eend int) bool {
				if serr = checkElement(data, key, eoff, count); serr != nil {
					return false
				}
				count++
				if key == "messages" && lookForPrompt {
					if m := data[eoff:eend]; gjson.GetBytes(m, "role").String() == "user" {
						h.FirstPrompt, lookForPrompt = promptText(gjson.GetBytes(m, "content")), false
					}
				}
				return true
			})
			if serr != nil {
				cerr = serr.corrupt(h.Path)
				return 0, false
			}
			if key == "messages" {
				n = count
			}
			return end, true
		}
		if serr := checkTopMember(data, key, off); serr != nil {
			cerr = serr.corrupt(h.Path)
			return 0, false
		}
		end := endOfValue(data, off)
		if isHeaderKey(key) {
			h.set(key, gjson.ParseBytes(data[off:end]))
		}
		return end, true
	})
	if cerr != nil {
		return cerr
	}
	if n >= 0 {
		h.MessageCount = n
	}
	if h.Title != "" {
		h.FirstPrompt = ""
	}
	return nil
}

// promptText is the text of a message content: a string, or the first text
// part of a list of parts ({type:"text",text}).
func promptText(c gjson.Result) string {
	if c.Type == gjson.String {
		return strings.Clone(c.Str)
	}
	var text string
	c.ForEach(func(_, part gjson.Result) bool {
		if t := part.Get("text"); t.Type == gjson.String {
			text = strings.Clone(t.Str)
			return false
		}
		return true
	})
	return text
}
