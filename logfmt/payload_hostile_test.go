//go:build unix

package logfmt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// countOpens replaces the payload opener for one test and counts the
// files actually opened.
func countOpens(t *testing.T) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	orig := openPayload
	openPayload = func(path string) (*os.File, error) {
		n.Add(1)
		return orig(path)
	}
	t.Cleanup(func() { openPayload = orig })
	return &n
}

// hostileWorld is a log folder with a payload folder, and next to it a
// folder the log must never reach: a FIFO (opening it for reading would
// block until a writer comes, so a test that reads it hangs) and a file
// that would pass every check if a symlink were followed.
type hostileWorld struct {
	logs, payloads, outside string
	good                    []byte // the content of outside/good.json
}

func newHostileWorld(t *testing.T) *hostileWorld {
	t.Helper()
	root := t.TempDir()
	w := &hostileWorld{
		logs:    filepath.Join(root, "logs"),
		outside: filepath.Join(root, "outside"),
		good:    []byte(`{"id":"m","role":"user","content":"from outside"}`),
	}
	w.payloads = filepath.Join(w.logs, "s.payloads")
	for _, d := range []string{w.payloads, w.outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(w.outside, "fifo"), 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	if err := os.WriteFile(filepath.Join(w.outside, sha(w.good)+".json"), w.good, 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *hostileWorld) ref(rel string) string {
	return `{"kind":"external-payload","encoding":"json","sha256":"` + sha(w.good) + `","byteLength":` + itoa(len(w.good)) +
		`,"relativePath":"` + rel + `"}`
}

func TestHostilePayloadReferencesAreRefusedUnread(t *testing.T) {
	w := newHostileWorld(t)
	h := sha(w.good)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(w.outside, "fifo"), filepath.Join(w.payloads, "fifo-link.json")))
	must(os.Symlink(filepath.Join(w.outside, h+".json"), filepath.Join(w.payloads, h+".json")))
	must(os.Symlink(w.outside, filepath.Join(w.payloads, "dir")))
	must(syscall.Mkfifo(filepath.Join(w.payloads, "fifo.json"), 0o600))

	tests := []struct {
		name, rel, code string
	}{
		{"parent segments", "../../etc/passwd", CodePayloadOutsideRoot},
		{"parent segments behind the folder name", "s.payloads/../../outside/" + h + ".json", CodePayloadOutsideRoot},
		{"an absolute path", filepath.Join(w.outside, h+".json"), CodePayloadOutsideRoot},
		{"a Windows absolute path", `C:\\Windows\\win.ini`, CodePayloadOutsideRoot},
		{"another session's folder", "t.payloads/" + h + ".json", CodePayloadOutsideRoot},
		{"the log folder itself", h + ".json", CodePayloadOutsideRoot},
		{"a symlink to a FIFO outside", "s.payloads/fifo-link.json", CodePayloadOutsideRoot},
		{"a symlink to a file that would pass", "s.payloads/" + h + ".json", CodePayloadOutsideRoot},
		{"a symlinked folder on the way", "s.payloads/dir/" + h + ".json", CodePayloadOutsideRoot},
		{"a FIFO inside the folder", "s.payloads/fifo.json", CodePayloadNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opens := countOpens(t)
			line := ev(0, "history_mutation", `"mutation":"append_message","message":`+w.ref(tt.rel))
			rep, err := Validate(strings.NewReader(logOf(line)), ValidateOptions{Dir: w.logs, SessionID: "s"})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Issues) != 1 || rep.Issues[0].Code != tt.code {
				t.Fatalf("issues %s, want one %s", issuesText(rep), tt.code)
			}
			_, err = ReplayLog(strings.NewReader(logOf(line)), ReplayOptions{Dir: w.logs, SessionID: "s"})
			var perr *PayloadError
			if !errors.As(err, &perr) || perr.Code != tt.code {
				t.Fatalf("replay err = %v, want %s", err, tt.code)
			}
			if n := opens.Load(); n != 0 {
				t.Fatalf("%d payload file(s) opened; a refused reference must never be read", n)
			}
		})
	}
}

func TestPayloadFolderThatIsASymlinkIsRefused(t *testing.T) {
	w := newHostileWorld(t)
	if err := os.Remove(w.payloads); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(w.outside, w.payloads); err != nil {
		t.Fatal(err)
	}
	opens := countOpens(t)
	line := ev(0, "user", `"content":`+w.ref("s.payloads/"+sha(w.good)+".json"))
	rep, err := Validate(strings.NewReader(logOf(line)), ValidateOptions{Dir: w.logs, SessionID: "s"})
	if err != nil || len(rep.Issues) != 1 || rep.Issues[0].Code != CodePayloadOutsideRoot || opens.Load() != 0 {
		t.Fatalf("%v %s opens=%d", err, issuesText(rep), opens.Load())
	}
}

func TestASymlinkedLogFolderIsFine(t *testing.T) {
	// ~/.trail/logs may itself be a symlink to a bigger disk: payloads
	// are checked against the folder's resolved path.
	w := newHostileWorld(t)
	if err := os.WriteFile(filepath.Join(w.payloads, sha(w.good)+".json"), w.good, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "logs-link")
	if err := os.Symlink(w.logs, link); err != nil {
		t.Fatal(err)
	}
	opens := countOpens(t)
	line := ev(0, "history_mutation", `"mutation":"append_message","message":`+w.ref("s.payloads/"+sha(w.good)+".json"))
	rep, err := ReplayLog(strings.NewReader(logOf(line)), ReplayOptions{Dir: link, SessionID: "s"})
	if err != nil || len(rep.Messages) != 1 || string(rep.Messages[0]) != string(w.good) {
		t.Fatalf("%v %+v", err, rep)
	}
	if opens.Load() != 1 {
		t.Errorf("opens = %d, want 1", opens.Load())
	}
}

func TestPayloadChecksAreRememberedPerLog(t *testing.T) {
	w := newHostileWorld(t)
	if err := os.WriteFile(filepath.Join(w.payloads, sha(w.good)+".json"), w.good, 0o600); err != nil {
		t.Fatal(err)
	}
	opens := countOpens(t)
	line := ev(0, "user", `"content":`+w.ref("s.payloads/"+sha(w.good)+".json"))
	rep, err := Validate(strings.NewReader(logOf(line, line, line)), ValidateOptions{Dir: w.logs, SessionID: "s"})
	if err != nil || len(rep.Issues) != 0 {
		t.Fatalf("%v %s", err, issuesText(rep))
	}
	if opens.Load() != 1 {
		t.Errorf("one payload referenced three times was opened %d times", opens.Load())
	}
}
