package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// trailRecord is a record in trail's layout with n messages of about pad
// bytes each.
func trailRecord(t testing.TB, id string, n, pad int) []byte {
	t.Helper()
	r := &Record{
		ID: id, Cwd: "/w", CreatedAt: "2025-01-01T00:00:00.000Z", UpdatedAt: "2025-01-02T00:00:00.000Z",
		Version: 1, Status: "idle", Provider: &ProviderRef{Name: "echo"}, MessageCount: n, Title: "hello",
		Usage: &Usage{InputTokens: 1, OutputTokens: 2},
	}
	for i := range n {
		m := fmt.Sprintf(`{"id":"m%d","role":"user","content":%q}`, i, strings.Repeat("x", pad))
		r.Messages = append(r.Messages, json.RawMessage(m))
	}
	return mustEncode(t, r)
}

func TestIDsSkipsWhatIsNotARecord(t *testing.T) {
	s := newStore(t)
	if ids, err := s.IDs(); err != nil || len(ids) != 0 {
		t.Fatalf("missing folder: %v %v", ids, err)
	}
	for _, name := range []string{"b.json", "a.json", "a.json.tmp-123", "a.json.bak", ".x.json", "a.lock", "bad id.json", "notes.txt"} {
		writeRecord(t, s, "tmp", nil)
		os.Rename(s.RecordPath("tmp"), filepath.Join(s.SessionsDir(), name))
	}
	// A folder in a record's place is listed: ListHeads marks it corrupt.
	os.Mkdir(filepath.Join(s.SessionsDir(), "dir.json"), 0o700)
	ids, err := s.IDs()
	if err != nil || !slices.Equal(ids, []string{"a", "b", "dir"}) {
		t.Errorf("IDs = %v, %v", ids, err)
	}
	heads, err := s.ListHeads()
	var nr *NotRegularError
	if err != nil || len(heads) != 3 || !heads[2].Corrupt || !errors.As(heads[2].Err, &nr) || nr.Kind != "a folder" {
		t.Errorf("ListHeads = %+v, %v", heads, err)
	}
}

func TestListHeadsReadsOnlyTheHeadOfTrailRecords(t *testing.T) {
	for name, systemPrompt := range map[string]string{
		"no system prompt": "",
		// The member after the header is a string the window cuts off.
		"a system prompt longer than the window": strings.Repeat("Be careful. ", 2000),
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			r := mustDecode(t, trailRecord(t, "big", 40, 1000))
			if systemPrompt != "" {
				r.Fields.Set("systemPrompt", systemPrompt)
			}
			data := mustEncode(t, r)
			// Break the middle: a full parse would call this corrupt, so a
			// clean head proves list did not read it.
			mid := bytes.Index(data[len(data)/2:], []byte(`"content"`)) + len(data)/2
			copy(data[mid:], `"content" ::`)
			writeRecord(t, s, "big", data)
			if _, err := s.Load("big"); !errors.As(err, new(*CorruptError)) {
				t.Fatalf("setup: the record should not load: %v", err)
			}
			h, err := s.ReadHead("big")
			if err != nil {
				t.Fatal(err)
			}
			want := Head{ID: "big", Cwd: "/w", CreatedAt: "2025-01-01T00:00:00.000Z", UpdatedAt: "2025-01-02T00:00:00.000Z",
				Version: 1, Status: "idle", Provider: &ProviderRef{Name: "echo"}, MessageCount: 40, Title: "hello",
				Usage: &Usage{InputTokens: 1, OutputTokens: 2}, Path: s.RecordPath("big"), Size: int64(len(data))}
			if !reflect.DeepEqual(h, want) {
				t.Errorf("head\n%+v\nwant\n%+v", h, want)
			}
		})
	}
}

func TestListHeads(t *testing.T) {
	s := newStore(t)
	big := trailRecord(t, "big", 40, 1000)
	writeRecord(t, s, "big", big)
	writeRecord(t, s, "cut", big[:len(big)-200])                               // truncated, indented
	writeRecord(t, s, "tiny", trailRecord(t, "tiny", 1, 10))                   // under the window
	writeRecord(t, s, "renamed", trailRecord(t, "other-id", 1, 10))            // id inside differs
	writeRecord(t, s, "robota", fixture(t, "robota.json"))                     // foreign, small
	writeRecord(t, s, "broken", fixture(t, "truncated.json"))                  // corrupt, small
	writeRecord(t, s, "empty", nil)                                            // corrupt, empty
	writeRecord(t, s, "oneline", []byte(compact(t, big)))                      // single line, valid
	writeRecord(t, s, "onelinebad", []byte(compact(t, big)[:len(big)/2]+`,}`)) // single line, broken
	var robotaBig bytes.Buffer                                                 // foreign: messages early, no messageCount
	robotaBig.WriteString(`{"id":"rb","cwd":"/r","updatedAt":"2025-03-01T00:00:00.000Z","messages":[`)
	for i := range 30 {
		if i > 0 {
			robotaBig.WriteString(",")
		}
		fmt.Fprintf(&robotaBig, `{"role":"assistant","content":%q}`, strings.Repeat("y", 500))
	}
	robotaBig.WriteString(`,{"role":"user","content":[{"type":"image"},{"type":"text","text":"late prompt"}]}],"history":[]}`)
	writeRecord(t, s, "robotabig", robotaBig.Bytes())

	heads, err := s.ListHeads()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Head{}
	for _, h := range heads {
		got[h.ID] = h
	}
	if len(heads) != 10 || len(got) != 10 {
		t.Fatalf("%d heads: %v", len(heads), got)
	}
	for id, want := range map[string]struct {
		corrupt     bool
		count       int
		title       string
		firstPrompt string
	}{
		"big":        {false, 40, "hello", ""},
		"cut":        {true, 0, "", ""},
		"tiny":       {false, 1, "hello", ""},
		"renamed":    {false, 1, "hello", ""},
		"robota":     {false, 3, "", "Summarise <notes> & todos"},
		"broken":     {true, 0, "", ""},
		"empty":      {true, 0, "", ""},
		"oneline":    {false, 40, "hello", ""},
		"onelinebad": {true, 0, "", ""},
		"robotabig":  {false, 31, "", "late prompt"},
	} {
		h := got[id]
		if h.Corrupt != want.corrupt || h.MessageCount != want.count || h.Title != want.title || h.FirstPrompt != want.firstPrompt {
			t.Errorf("%s: corrupt=%v count=%d title=%q prompt=%q err=%v", id, h.Corrupt, h.MessageCount, h.Title, h.FirstPrompt, h.Err)
		}
		if h.Path != s.RecordPath(id) || h.Size == 0 && id != "empty" {
			t.Errorf("%s: path %q size %d", id, h.Path, h.Size)
		}
		if want.corrupt && !errors.As(h.Err, new(*CorruptError)) {
			t.Errorf("%s: Err %v is not a *CorruptError", id, h.Err)
		}
	}
	var ce *CorruptError
	if errors.As(got["cut"].Err, &ce); ce == nil || ce.Offset != int64(len(big)-200) {
		t.Errorf("truncated record: %v", got["cut"].Err)
	}
	if got["robota"].Cwd != "/home/dev/project" || got["robotabig"].UpdatedAt != "2025-03-01T00:00:00.000Z" {
		t.Errorf("foreign headers: %+v %+v", got["robota"], got["robotabig"])
	}
}

func TestReadHeadMissing(t *testing.T) {
	s := newStore(t)
	if _, err := s.ReadHead("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("got %v", err)
	}
}

// Heads must not pin the file text they were cut from.
func TestHeadStringsDoNotAliasTheFile(t *testing.T) {
	var h Head
	win := trailRecord(t, "a", 1, 10)
	if !h.fromWindow(win) {
		t.Fatal("window not complete")
	}
	title := h.Title
	for i := range win {
		win[i] = 'z'
	}
	if h.Title != title || title != "hello" {
		t.Errorf("title %q", h.Title)
	}
}

// A big record (read by its head window only) whose header is not JSON is
// corrupt, whatever gjson's lenient reading makes of it: a doubled brace,
// a missing comma or colon, a NUL between members. Each is what a hand
// edit or a bad copy leaves.
func TestListHeadsFindsBrokenPunctuationInTheHeadWindow(t *testing.T) {
	good := trailRecord(t, "big", 40, 200)
	if len(good) <= headWindow {
		t.Fatalf("the record is %d bytes, not bigger than the window", len(good))
	}
	for name, edit := range map[string]func([]byte) []byte{
		"a doubled brace":         func(b []byte) []byte { return append([]byte("{"), b...) },
		"a missing comma":         func(b []byte) []byte { return bytes.Replace(b, []byte(`"version": 1,`), []byte(`"version": 1`), 1) },
		"a missing colon":         func(b []byte) []byte { return bytes.Replace(b, []byte(`"cwd":`), []byte(`"cwd" `), 1) },
		"a NUL between":           func(b []byte) []byte { return bytes.Replace(b, []byte(`,`), []byte(",\x00"), 1) },
		"two commas":              func(b []byte) []byte { return bytes.Replace(b, []byte(`,`), []byte(",,"), 1) },
		"a key that is no string": func(b []byte) []byte { return bytes.Replace(b, []byte(`"cwd":`), []byte(`cwd:`), 1) },
	} {
		t.Run(name, func(t *testing.T) {
			bad := edit(bytes.Clone(good))
			if bytes.Equal(bad, good) {
				t.Fatal("the edit changed nothing")
			}
			s := newStore(t)
			writeRecord(t, s, "big", bad)
			heads, err := s.ListHeads()
			if err != nil || len(heads) != 1 || !heads[0].Corrupt {
				t.Fatalf("heads %+v, %v", heads, err)
			}
		})
	}
	s := newStore(t)
	writeRecord(t, s, "big", good)
	if heads, err := s.ListHeads(); err != nil || len(heads) != 1 || heads[0].Corrupt || heads[0].MessageCount != 40 {
		t.Fatalf("the good record: %+v, %v", heads, err)
	}
}

// A log without its record (a first step killed before its first save, a
// Robota session whose record is gone) is listed after the records,
// corrupt and LogOnly, its path the log; a log beside its record, a
// payload folder and names that are no session's add nothing.
func TestListHeadsShowsASessionThatHasOnlyItsLog(t *testing.T) {
	s := newStore(t)
	writeRecord(t, s, "both", []byte(`{"id":"both","cwd":"/w","messages":[]}`))
	for _, name := range []string{"both.jsonl", "session_1767600000000_r0b0t4xyz.jsonl", "bad id.jsonl", "notes.txt", "both.jsonl.bak"} {
		if err := os.WriteFile(filepath.Join(s.LogsDir(), name), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(s.PayloadDir("both"), 0o700)
	heads, err := s.ListHeads()
	if err != nil || len(heads) != 2 {
		t.Fatalf("ListHeads = %+v, %v", heads, err)
	}
	if h := heads[0]; h.ID != "both" || h.Corrupt || h.LogOnly {
		t.Errorf("the session with its record: %+v", h)
	}
	h := heads[1]
	if h.ID != "session_1767600000000_r0b0t4xyz" || !h.Corrupt || !h.LogOnly || h.Path != s.LogPath(h.ID) || !errors.Is(h.Err, ErrLogOnly) {
		t.Errorf("the session with only its log: %+v", h)
	}
}
