package tools

import (
	"testing"
)

func TestTempNamesHaveTheFormTheSweepRemoves(t *testing.T) {
	for _, base := range []string{"out.txt", ".env", "a.tmp-1", string(make([]byte, 255))} {
		name := TempName(base)
		if !isTempName(name) || len(name) > 255 {
			t.Errorf("TempName(%d bytes) = %d bytes %q", len(base), len(name), name[:min(len(name), 40)])
		}
	}
	for _, name := range []string{"out.txt", ".out.txt", ".out.txt.tmp-", ".out.txt.tmp-12a", "out.txt.tmp-12", ".tmp-1"} {
		if isTempName(name) {
			t.Errorf("%q taken for a temp file", name)
		}
	}
}
