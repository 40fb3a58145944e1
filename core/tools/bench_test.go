package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReadTopOfALargeFile: Read of a 64 MB log's first lines; B/op
// shows it holds the selected lines, not the file.
func BenchmarkReadTopOfALargeFile(b *testing.B) {
	dir := b.TempDir()
	line := strings.Repeat("x", 99) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "big.log"), []byte(strings.Repeat(line, 640_000)), 0o644); err != nil {
		b.Fatal(err)
	}
	env := Env{Cwd: dir}
	b.ReportAllocs()
	for b.Loop() {
		if r := (Read{}).Run(b.Context(), []byte(`{"filePath":"big.log","limit":10}`), env); !r.Success {
			b.Fatal(r.Error)
		}
	}
}

// BenchmarkGlobIgnoreFiles: Glob over 2,000 files in 100 folders, with a
// 40-rule .gitignore at the top and one rule per folder, against the same
// walk with noIgnore: the cost of honouring ignore files.
func BenchmarkGlobIgnoreFiles(b *testing.B) {
	dir := b.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	var rules strings.Builder
	for i := range 20 {
		fmt.Fprintf(&rules, "*.gen%d\n/out%d/\n", i, i)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(rules.String()), 0o644)
	for d := range 100 {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%d", d))
		os.MkdirAll(sub, 0o755)
		os.WriteFile(filepath.Join(sub, ".gitignore"), []byte("!keep.gen1\n"), 0o644)
		for f := range 20 {
			os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.go", f)), nil, 0o644)
		}
	}
	env := Env{Cwd: dir}
	for _, mode := range []string{"ignore", "noIgnore"} {
		args := []byte(`{"pattern":"**/*.go","noIgnore":` + fmt.Sprint(mode == "noIgnore") + `}`)
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				if r := (Glob{}).Run(b.Context(), args, env); !r.Success || !strings.HasSuffix(r.Output, "see more.]") {
					b.Fatal(r.Error, r.Output[:min(len(r.Output), 100)])
				}
			}
		})
	}
}
