package main_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// forbidden lists, for each layer, the trail packages it must never import:
// arrows only point down, commands -> core -> (store, logfmt).
var forbidden = map[string][]string{
	"store":    {"trail/core", "trail/commands", "trail/logfmt"},
	"logfmt":   {"trail/core", "trail/commands", "trail/store"},
	"core":     {"trail/commands"},
	"commands": {},
}

func TestImportsPointDown(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
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
		layer := strings.SplitN(filepath.ToSlash(path), "/", 2)[0]
		bans, ok := forbidden[layer]
		if !ok {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, ban := range bans {
				if p == ban || strings.HasPrefix(p, ban+"/") {
					t.Errorf("%s imports %s: %s must not depend on %s", path, p, layer, ban)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("only %d files checked: the walk is broken", checked)
	}
}
