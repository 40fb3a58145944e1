package tools

import (
	"slices"
	"strings"

	"trail/lazy"
)

// Grep's type parameter, as ripgrep's --type (Claude Code passes it
// through): the file names each common type covers, from `rg
// --type-list`. A type not listed is refused, naming the known ones, so a
// model never takes every file for a filtered search.
var grepTypes = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"c":          {"*.[chH]", "*.[chH].in", "*.cats"},
		"cpp":        {"*.[ChH]", "*.cc", "*.[ch]pp", "*.[ch]xx", "*.hh", "*.inl", "*.[ChH].in", "*.cc.in", "*.[ch]pp.in", "*.[ch]xx.in", "*.hh.in"},
		"cs":         {"*.cs"},
		"css":        {"*.css", "*.scss"},
		"csv":        {"*.csv"},
		"dart":       {"*.dart"},
		"docker":     {"*Dockerfile*"},
		"elixir":     {"*.ex", "*.eex", "*.exs", "*.heex", "*.leex", "*.livemd"},
		"erlang":     {"*.erl", "*.hrl"},
		"go":         {"*.go"},
		"h":          {"*.h", "*.hh", "*.hpp"},
		"haskell":    {"*.hs", "*.lhs", "*.cpphs", "*.c2hs", "*.hsc"},
		"html":       {"*.htm", "*.html", "*.ejs"},
		"java":       {"*.java", "*.jsp", "*.jspx", "*.properties"},
		"js":         {"*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"},
		"json":       {"*.json", "composer.lock", "*.sarif"},
		"jsonl":      {"*.jsonl"},
		"kotlin":     {"*.kt", "*.kts"},
		"lua":        {"*.lua"},
		"make":       {"[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Gg][Nn][Uu]makefile.am", "[Mm]akefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile.in", "*.mk", "*.mak"},
		"markdown":   {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
		"md":         {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
		"php":        {"*.php", "*.php3", "*.php4", "*.php5", "*.php7", "*.php8", "*.pht", "*.phtml"},
		"proto":      {"*.proto"},
		"py":         {"*.py", "*.pyi"},
		"python":     {"*.py", "*.pyi"},
		"r":          {"*.R", "*.r", "*.Rmd", "*.Rnw"},
		"ruby":       {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb", "*.rbw"},
		"rust":       {"*.rs"},
		"scala":      {"*.scala", "*.sbt"},
		"sh":         {"*.bash", "*.bashrc", ".bash_*", ".bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh", ".zshrc", ".zprofile", ".zlogin", ".zlogout", ".zshenv", "zshrc", "zprofile"},
		"sql":        {"*.sql", "*.psql"},
		"swift":      {"*.swift"},
		"tex":        {"*.tex", "*.ltx", "*.cls", "*.sty", "*.bib", "*.dtx", "*.ins"},
		"toml":       {"*.toml", "Cargo.lock"},
		"ts":         {"*.ts", "*.tsx", "*.cts", "*.mts"},
		"typescript": {"*.ts", "*.tsx", "*.cts", "*.mts"},
		"txt":        {"*.txt"},
		"vue":        {"*.vue"},
		"xml":        {"*.xml", "*.xml.dist", "*.dtd", "*.xsl", "*.xslt", "*.xsd", "*.xjb", "*.rng", "*.sch", "*.xhtml"},
		"yaml":       {"*.yaml", "*.yml"},
		"zig":        {"*.zig"},
	}
}}

// typeFilter is the name filter of a Grep type, or why there is none.
func typeFilter(name string) ([]*globPattern, string) {
	globs, ok := grepTypes.Get()[strings.ToLower(name)]
	if !ok {
		known := make([]string, 0, len(grepTypes.Get()))
		for k := range grepTypes.Get() {
			known = append(known, k)
		}
		slices.Sort(known)
		return nil, "Unknown file type: " + name + " (known: " + strings.Join(known, ", ") + "; or filter with glob)"
	}
	out := make([]*globPattern, 0, len(globs))
	for _, g := range globs {
		if p, err := parseGlob(g); err == nil {
			out = append(out, p)
		}
	}
	return out, ""
}
