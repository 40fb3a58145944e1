// Package lazy holds values built on first use and at no start-up cost.
//
// A package-level sync.OnceValue, map literal or strings.NewReplacer is
// built when the program starts, by the package's init: every trail
// process paid for every table and regular expression of every package,
// trail --version included. A Value declared as a composite literal,
//
//	var word = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { ... }}
//
// is static data the compiler lays out in the binary: nothing runs until
// the first Get.
package lazy

import (
	"regexp"
	"sync"
)

// Value is a T that New builds on the first Get, once, safe for
// concurrent use. New must not call Get on the same Value.
type Value[T any] struct {
	New  func() T
	once sync.Once
	v    T
}

// Get returns the value, building it on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(l.build)
	return l.v
}

func (l *Value[T]) build() { l.v = l.New() }

// Regexp is a regular expression compiled on the first Get. Expr must
// compile: a bad one panics on first use, as regexp.MustCompile does at
// start-up.
type Regexp struct {
	Expr string
	once sync.Once
	re   *regexp.Regexp
}

// Get returns the compiled expression.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(r.compile)
	return r.re
}

func (r *Regexp) compile() { r.re = regexp.MustCompile(r.Expr) }
