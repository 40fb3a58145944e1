package lazy

import (
	"sync"
	"sync/atomic"
	"testing"
)

var built atomic.Int32

var table = Value[map[string]int]{New: func() map[string]int {
	built.Add(1)
	return map[string]int{"a": 1}
}}

func TestValueIsBuiltOnceOnFirstUse(t *testing.T) {
	if built.Load() != 0 {
		t.Fatal("built before the first Get")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if table.Get()["a"] != 1 {
				t.Error("wrong value")
			}
		}()
	}
	wg.Wait()
	if n := built.Load(); n != 1 {
		t.Fatalf("built %d times", n)
	}
}

var word = Regexp{Expr: `^[a-z]+$`}

func TestRegexpCompilesOnFirstUse(t *testing.T) {
	if word.re != nil {
		t.Fatal("compiled before the first Get")
	}
	if !word.Get().MatchString("abc") || word.Get().MatchString("a b") {
		t.Error("wrong expression")
	}
}
