package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// IDs returns the ids of the records in sessions/, sorted by name. Temp
// files (*.json.tmp-*), backups (*.json.bak) and names that are not valid
// ids are not records and are left out. A missing folder means no sessions.
func (s *FS) IDs() ([]string, error) {
	ids, strays, err := recordIDs(s.SessionsDir())
	s.mu.Lock()
	s.strays = strays
	s.mu.Unlock()
	return ids, err
}

// Strays are the files in sessions/ that the last IDs (or ListHeads) left
// out as no record although they end in .json: their names are no
// session ids (a copy named "my session.json", a file another program put
// there). list names them rather than pass over them in silence.
func (s *FS) Strays() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.strays
}

func recordIDs(dir string) (ids, strays []string, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list sessions: %w", err)
	}
	ids = make([]string, 0, len(entries))
	for _, e := range entries {
		// A folder named like a record is listed too: it takes the
		// record's place, and list shows it as corrupt (ReadHead), as a
		// FIFO or a link there is, rather than hiding the session.
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if ValidateID(id) != nil {
			strays = append(strays, filepath.Join(dir, e.Name()))
			continue
		}
		ids = append(ids, id)
	}
	return ids, strays, nil
}

// listWorkers is one reader per core the runtime may use: a record's
// open, read and close cost CPU, not waiting, when it is in the page cache
// (the common case), so more readers than cores only queue up and make the
// scheduler spin and sleep between them.
func listWorkers() int { return runtime.GOMAXPROCS(0) }

// ListHeads returns one Head per record, in IDs order (callers sort by what
// they show), then one per log without a record (LogOnly, see
// logOnlyHeads). A record that does not parse is included with Corrupt
// set; a record deleted while we list is left out. Each record costs two
// small reads when trail wrote it (see ReadHead), so the time does not
// grow with the size of the sessions.
func (s *FS) ListHeads() ([]Head, error) {
	ids, err := s.IDs()
	if err != nil {
		return nil, err
	}
	// logs/ is read while the records are: one read of its names, no
	// file opened (about 5 ms of CPU for 10,000 logs, lost in the noise
	// of `trail list` over them).
	var logOnly []Head
	logsRead := make(chan struct{})
	go func() {
		defer close(logsRead)
		logOnly = s.logOnlyHeads(ids)
	}()
	heads := make([]Head, len(ids))
	gone := make([]bool, len(ids))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(listWorkers(), len(ids)) {
		wg.Go(func() {
			win := make([]byte, headWindow+tailWindow)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(ids) {
					return
				}
				heads[i], gone[i] = readHead(s.RecordPath(ids[i]), ids[i], win)
			}
		})
	}
	wg.Wait()
	out := heads[:0]
	for i, h := range heads {
		if gone[i] {
			continue
		}
		if h.Corrupt {
			// A record that does not parse still has its log, which says
			// the session's name, cwd and time: resume NAME then reaches
			// it (exit 7, with the repair) instead of "not found", and
			// the name is not free for another session to take.
			fillFromLog(&h, s.LogPath(h.ID))
		}
		out = append(out, h)
	}
	<-logsRead
	return append(out, logOnly...), nil
}

// logOnlyHeads are the sessions with a log and no record: a first step
// killed before its first save, or a Robota session whose record is gone
// (Robota lists and loads such sessions from their log). Each is Corrupt
// and LogOnly, its Path the log: `trail replay ID --write-record` rebuilds
// the record. They cost one read of the logs folder's names, compared with
// the records' ids; a folder that cannot be read shows none.
func (s *FS) logOnlyHeads(ids []string) []Head {
	f, err := os.Open(s.LogsDir())
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(-1)
	_ = f.Close()
	var records map[string]struct{}
	var out []Head
	for _, n := range names {
		id, ok := strings.CutSuffix(n, ".jsonl")
		if !ok || ValidateID(id) != nil {
			continue
		}
		if records == nil {
			records = make(map[string]struct{}, len(ids))
			for _, r := range ids {
				records[r] = struct{}{}
			}
		}
		if _, ok := records[id]; !ok {
			h := Head{ID: id, Path: s.LogPath(id), Corrupt: true, LogOnly: true, Err: ErrLogOnly}
			fillFromLog(&h, h.Path)
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ReadHead returns the head of one record, wrapping ErrNotFound when it does
// not exist. A corrupt record is a Head with Corrupt set, not an error.
func (s *FS) ReadHead(id string) (Head, error) {
	if err := ValidateID(id); err != nil {
		return Head{}, fmt.Errorf("read session: %w", err)
	}
	h, gone := readHead(s.RecordPath(id), id, make([]byte, headWindow+tailWindow))
	if gone {
		return Head{}, fmt.Errorf("read session %s: %w", id, ErrNotFound)
	}
	return h, nil
}
