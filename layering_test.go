package main_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The house (STYLE.md): arrows only point down,
//
//	main -> commands -> core -> core/* -> (store, logfmt)
//
// and the packages under core/ import each other downward only:
//
//	errs, chat        the leaves: every other part speaks them
//	                  (store.QuoteInput is for every layer above store)
//	settings          the files, merged (errs)
//	permission        rules and decisions (chat, errs, settings)
//	hooks             hook commands (chat, permission, settings)
//	tools             the built-in tools (chat, permission)
//	provider          the Provider interface and its configuration (chat, errs, settings)
//	provider/*        the implementations (provider, chat, errs, wire)
//	peer              other agents' session files, read and written (chat)
//
// allowed lists, for each package, the trail packages it may import; a
// package not listed may import none. An import of a package missing from
// its list fails the test, so a new arrow is a decision made here.
var allowed = map[string][]string{
	"trail":             {"trail/commands"},
	"trail/scripts/man": {"trail/commands"}, // the manual page's generator
	"trail/commands":    {"trail/core", "trail/core/*", "trail/store", "trail/logfmt"},
	"trail/core": {
		"trail/core/chat", "trail/core/errs", "trail/core/hooks", "trail/core/peer", "trail/core/permission",
		"trail/core/procgroup", // how many tools run at once under the open-files limit
		"trail/core/provider", "trail/core/settings", "trail/core/tools", "trail/store", "trail/logfmt",
	},
	"trail/core/errs":                   {"trail/store"}, // store.QuoteInput only
	"trail/core/chat":                   {"trail/logfmt"},
	"trail/core/settings":               {"trail/core/errs", "trail/store"},
	"trail/core/permission":             {"trail/core/chat", "trail/core/errs", "trail/core/settings", "trail/store"},
	"trail/core/hooks":                  {"trail/core/chat", "trail/core/permission", "trail/core/procgroup", "trail/core/settings", "trail/logfmt", "trail/store"},
	"trail/core/tools":                  {"trail/core/chat", "trail/core/permission", "trail/core/procgroup", "trail/logfmt", "trail/store"},
	"trail/core/procgroup":              {},
	"trail/core/provider":               {"trail/core/chat", "trail/core/errs", "trail/core/settings", "trail/store"},
	"trail/core/peer":                   {"trail/core/chat", "trail/logfmt"},
	"trail/core/provider/wire":          {"trail/core/provider", "trail/core/errs", "trail/store"},
	"trail/core/provider/wire/wiretest": {"trail/core/provider", "trail/core/chat"},
	"trail/core/provider/anthropic":     {"trail/core/provider", "trail/core/provider/wire", "trail/core/chat", "trail/core/errs"},
	"trail/core/provider/openai":        {"trail/core/provider", "trail/core/provider/wire", "trail/core/chat", "trail/core/errs"},
	"trail/core/provider/echo":          {"trail/core/provider", "trail/core/chat"},
	"trail/core/provider/script":        {"trail/core/provider", "trail/core/chat", "trail/core/errs"},
	// The cassette plays a recorded trail log: it reads it with logfmt's
	// reader and payload resolver, as replay does.
	"trail/core/provider/cassette": {"trail/core/provider", "trail/core/chat", "trail/core/errs", "trail/logfmt"},
	"trail/store":                  {},
	"trail/logfmt":                 {},
	"trail/lazy":                   {},
}

// everyone may import these: values built on first use (lazy) are below
// every layer.
var everyone = []string{"trail/lazy"}

// testOnly are the extra imports a package's tests may make: fixtures and
// the real implementations an engine test drives.
var testOnly = map[string][]string{
	"trail":                         {"trail/core/provider/wire/wiretest", "trail/logfmt", "trail/store"},
	"trail/core/provider/anthropic": {"trail/core/provider/wire/wiretest"},
	"trail/core/provider/openai":    {"trail/core/provider/wire/wiretest"},
	"trail/core/provider/wire":      {"trail/core/provider/wire/wiretest"},
	"trail/commands":                {"trail/core/provider/wire/wiretest"},
	"trail/core":                    {"trail/core/provider/echo", "trail/core/provider/script"},
}

func permitted(list []string, imp string) bool {
	for _, a := range list {
		if a == imp || (strings.HasSuffix(a, "/*") && strings.HasPrefix(imp, strings.TrimSuffix(a, "*"))) {
			return true
		}
	}
	return false
}

func TestImportsPointDown(t *testing.T) {
	fset := token.NewFileSet()
	checked := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		pkg := "trail"
		if dir := filepath.ToSlash(filepath.Dir(path)); dir != "." {
			pkg += "/" + dir
		}
		list, ok := allowed[pkg]
		list = append(slices.Clone(list), everyone...)
		if !ok {
			t.Errorf("%s: package %s has no entry in allowed: say what it may import", path, pkg)
			return nil
		}
		if strings.HasSuffix(path, "_test.go") {
			list = append(list, testOnly[pkg]...)
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked[pkg] = true
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if (p == "trail" || strings.HasPrefix(p, "trail/")) && !permitted(list, p) {
				t.Errorf("%s imports %s: %s may import only %v", path, p, pkg, list)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range allowed {
		if !checked[pkg] {
			t.Errorf("no file of %s was checked: the walk is broken, or the package is gone from allowed's map", pkg)
		}
	}
}

// The allowed map itself has no cycle, so no change to it can let two
// packages lean on each other.
func TestAllowedImportsHaveNoCycle(t *testing.T) {
	state := map[string]int{} // 0 new, 1 on the path, 2 done
	var visit func(pkg string, path []string)
	visit = func(pkg string, path []string) {
		switch state[pkg] {
		case 1:
			t.Fatalf("import cycle allowed: %s -> %s", strings.Join(path, " -> "), pkg)
		case 2:
			return
		}
		state[pkg] = 1
		for _, next := range allowed[pkg] {
			if strings.HasSuffix(next, "/*") {
				for p := range allowed {
					if permitted([]string{next}, p) {
						visit(p, append(path, pkg))
					}
				}
				continue
			}
			visit(next, append(path, pkg))
		}
		state[pkg] = 2
	}
	for pkg := range allowed {
		visit(pkg, nil)
	}
}
