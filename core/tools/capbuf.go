package tools

import (
	"sync"
	"unicode/utf8"
)

// capKeep is how many bytes of each end of a command's output are kept. It
// holds at least keepChars characters of any UTF-8 text (4 bytes each at
// most), so truncation after the gap still shows 15,000 characters a side.
const capKeep = 64 * 1024

// capBuffer keeps the first and last capKeep bytes written to it and counts
// what it dropped between them, so a command printing gigabytes costs
// bounded memory.
type capBuffer struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte // ring of the last capKeep bytes once head is full
	pos     int    // next write position in tail when it is full
	dropped int    // bytes neither in head nor in tail
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := capKeep - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		if len(b.tail) < capKeep {
			k := min(capKeep-len(b.tail), len(p))
			b.tail = append(b.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := min(capKeep-b.pos, len(p))
		b.dropped += k
		copy(b.tail[b.pos:], p[:k])
		b.pos = (b.pos + k) % capKeep
		p = p[k:]
	}
	return n, nil
}

// text returns what was kept and the length in characters of everything
// written (dropped bytes counted as one character each: an estimate only
// when the dropped part was not ASCII).
func (b *capBuffer) text() (string, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	kept := make([]byte, 0, len(b.head)+len(b.tail))
	kept = append(kept, b.head...)
	kept = append(kept, b.tail[b.pos:]...)
	kept = append(kept, b.tail[:b.pos]...)
	s := string(kept)
	if b.dropped > 0 {
		// The cut may split a character at either end of the gap.
		s = string(b.head) + trimLeadingPartial(string(b.tail[b.pos:])+string(b.tail[:b.pos]))
	}
	return s, utf8.RuneCountInString(s) + b.dropped
}

func trimLeadingPartial(s string) string {
	for i := 0; i < utf8.UTFMax && i < len(s); i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}
