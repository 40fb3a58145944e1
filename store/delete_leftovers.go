package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Leftover temp files: a save killed between writing its temp file and
// renaming it leaves the whole new record (or transcript) beside the
// real one, so delete removes them with the session. Their names carry a
// pid or random digits no file records, hence one read of each folder.
// Only names of exactly this id's shapes are taken:
//
//	sessions/<id>.json.tmp-<digits>      trail's record (writeFileAtomic)
//	sessions/<id>.json.bak.tmp-<digits>  trail's backup (migrate-history --backup)
//	sessions/<id>.json.<pid>.tmp         Robota's record (SessionStore.save)
//	transcripts/<id>.jsonl.tmp-<digits>  trail's transcript
//
// Digits never hold a dot, so a name names one id: another session's
// files (<id>.json.5.json, say, for a session "<id>.json.5") never match.

// leftoverTemps returns the paths of id's leftover temp files.
func (s *FS) leftoverTemps(id string) ([]string, error) {
	var out []string
	for _, d := range []struct {
		dir string
		is  func(name, id string) bool
	}{
		{s.SessionsDir(), func(name, id string) bool { return isTempOf(name, id) || isRobotaTempOf(name, id) }},
		{s.TranscriptsDir(), isTranscriptTempOf},
	} {
		names, err := namesStarting(d.dir, id+".json")
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if d.is(n, id) {
				out = append(out, filepath.Join(d.dir, n))
			}
		}
	}
	return out, nil
}

// isRobotaTempOf reports <id>.json.<digits>.tmp.
func isRobotaTempOf(name, id string) bool {
	rest, ok := strings.CutPrefix(name, id+".json.")
	if !ok {
		return false
	}
	digits, ok := strings.CutSuffix(rest, ".tmp")
	return ok && isDigits(digits)
}

// isTranscriptTempOf reports <id>.jsonl.tmp-<digits>.
func isTranscriptTempOf(name, id string) bool {
	digits, ok := strings.CutPrefix(name, id+".jsonl"+tempInfix)
	return ok && isDigits(digits)
}

func isDigits(s string) bool {
	return s != "" && len(s) <= 20 && strings.Trim(s, "0123456789") == ""
}

// namesStarting lists the names in dir that start with prefix; a missing
// folder has none.
func namesStarting(dir, prefix string) ([]string, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	defer f.Close()
	var out []string
	for {
		names, err := f.Readdirnames(1024)
		for _, n := range names {
			if strings.HasPrefix(n, prefix) {
				out = append(out, n)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("read %s: %w", dir, err)
		}
	}
}
