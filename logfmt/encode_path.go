package logfmt

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// An encoding error says where in the value it happened: the keys and
// indexes from the top down to the value that failed. Each level adds its
// step to one error in O(1). Wrapping with fmt.Errorf at every level, as
// this once did, copied the whole message per level: a value nested 10,001
// deep took 6.8 s to fail, with a 90 KB message. Error shows a few steps at
// each end of the path and counts the rest, so the message has a bounded
// size however deep the value (the deep-JSON error: under 512 bytes).

// pathShown is how many steps Error shows at each end of a long path.
const pathShown = 4

// maxKeyShown bounds a key in the message, in characters.
const maxKeyShown = 40

type pathStep struct {
	key   string
	index int
	isKey bool
}

// pathError is err with the path to where it happened, innermost step first.
type pathError struct {
	steps []pathStep
	err   error
}

func (e *pathError) Unwrap() error { return e.err }

func (e *pathError) Error() string {
	var b strings.Builder
	n := len(e.steps)
	for i := n - 1; i >= 0; i-- {
		if n > 2*pathShown && i == n-1-pathShown {
			b.WriteString("… ")
			b.WriteString(strconv.Itoa(n - 2*pathShown))
			b.WriteString(" more levels …: ")
			i = pathShown // the loop's i-- lands on the last pathShown steps
			continue
		}
		e.steps[i].write(&b)
		b.WriteString(": ")
	}
	b.WriteString(e.err.Error())
	return b.String()
}

func (s pathStep) write(b *strings.Builder) {
	if !s.isKey {
		b.WriteString("index ")
		b.WriteString(strconv.Itoa(s.index))
		return
	}
	b.WriteString("key ")
	key, cut := s.key, false
	if utf8.RuneCountInString(key) > maxKeyShown {
		n := 0
		for i := range key {
			if n == maxKeyShown {
				key, cut = key[:i], true
				break
			}
			n++
		}
	}
	b.WriteString(strconv.Quote(key))
	if cut {
		b.WriteString("…")
	}
}

// atKey and atIndex add one step to err's path. Only an error this file
// made is extended in place; anything else is wrapped once.
func atKey(err error, key string) error {
	return atStep(err, pathStep{key: key, isKey: true})
}

func atIndex(err error, i int) error {
	return atStep(err, pathStep{index: i})
}

func atStep(err error, s pathStep) error {
	if pe, ok := err.(*pathError); ok {
		pe.steps = append(pe.steps, s)
		return pe
	}
	return &pathError{steps: []pathStep{s}, err: err}
}
