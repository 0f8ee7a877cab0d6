package split

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gochunk/gochunk"
)

// language describes what the code chunker and the recursive splitter's
// presets know of a programming language: the keywords that start a
// definition, and the line prefixes of comments and annotations that belong
// to the definition below them.
type language struct {
	defs     string // RE2 alternation of what starts a definition line
	comments []string
	exts     []string
}

var languages = map[string]language{
	"go":     {`func|type|var|const|import|package`, []string{"//", "/*", " *"}, []string{".go"}},
	"python": {`class|def|async\s+def`, []string{"#", "@"}, []string{".py", ".pyi"}},
	"js": {`function|class|export|const|let|var|async\s+function|import`,
		[]string{"//", "/*", " *", "@"}, []string{".js", ".mjs", ".cjs", ".jsx"}},
	"ts": {`function|class|export|const|let|var|async\s+function|import|interface|type|enum|namespace|declare`,
		[]string{"//", "/*", " *", "@"}, []string{".ts", ".tsx", ".mts"}},
	"java": {`(?:public|private|protected|static|final|abstract|sealed)\s|class\s|interface\s|enum\s|record\s|@interface`,
		[]string{"//", "/*", " *", "@"}, []string{".java"}},
	"kotlin": {`(?:public|private|protected|internal|override|open|data|sealed|abstract|inline|suspend)\s|fun\s|class\s|object\s|interface\s|val\s|var\s`,
		[]string{"//", "/*", " *", "@"}, []string{".kt", ".kts"}},
	"scala":  {`(?:private|protected|override|final|sealed|implicit|case)\s|def\s|class\s|object\s|trait\s|val\s|var\s`, []string{"//", "/*", " *", "@"}, []string{".scala"}},
	"csharp": {`(?:public|private|protected|internal|static|sealed|abstract|partial|async|override|virtual)\s|class\s|interface\s|struct\s|enum\s|record\s|namespace\s`, []string{"//", "/*", " *", "["}, []string{".cs"}},
	"c":      {`(?:static|inline|extern|typedef|struct|enum|union|void|int|char|float|double|long|short|unsigned|signed|bool|const|size_t)\b|#define\s`, []string{"//", "/*", " *"}, []string{".c", ".h"}},
	"cpp":    {`(?:static|inline|extern|typedef|struct|enum|union|class|namespace|template|void|int|char|float|double|long|short|unsigned|bool|auto|const|virtual)\b|#define\s`, []string{"//", "/*", " *"}, []string{".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"}},
	"rust":   {`(?:pub(?:\([^)]*\))?\s+)?(?:async\s+|unsafe\s+|const\s+)?(?:fn|struct|enum|trait|impl|mod|const|static|type|union|macro_rules!)\b`, []string{"//", "/*", " *", "#["}, []string{".rs"}},
	"ruby":   {`def|class|module`, []string{"#"}, []string{".rb"}},
	"php":    {`(?:public|private|protected|static|abstract|final)\s|function\s|class\s|interface\s|trait\s|namespace\s`, []string{"//", "/*", " *", "#"}, []string{".php"}},
	"swift":  {`(?:public|private|fileprivate|internal|open|static|final|override)\s|func\s|class\s|struct\s|enum\s|protocol\s|extension\s|let\s|var\s`, []string{"//", "/*", " *", "@"}, []string{".swift"}},
	"shell":  {`function\s|[A-Za-z_][A-Za-z0-9_]*\s*\(\)`, []string{"#"}, []string{".sh", ".bash", ".zsh"}},
	"lua":    {`function|local\s+function`, []string{"--"}, []string{".lua"}},
}

// Languages returns the names of the languages with presets, sorted.
func Languages() []string {
	out := []string{"markdown", "html", "latex"}
	for k := range languages {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var languageAliases = map[string]string{
	"golang": "go", "py": "python", "javascript": "js", "typescript": "ts", "c++": "cpp",
	"cs": "csharp", "c#": "csharp", "rs": "rust", "rb": "ruby", "kt": "kotlin", "sh": "shell",
	"bash": "shell", "md": "markdown",
}

func canonicalLanguage(name string) string {
	name = strings.ToLower(name)
	if a, ok := languageAliases[name]; ok {
		return a
	}
	return name
}

// LanguageForFile returns the language of a file name by its extension, or
// "" when it is not known.
func LanguageForFile(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	if ext == "" {
		return ""
	}
	switch ext {
	case ".md", ".markdown", ".mdx":
		return "markdown"
	case ".html", ".htm":
		return "html"
	case ".tex":
		return "latex"
	}
	for name, l := range languages {
		for _, e := range l.exts {
			if e == ext {
				return name
			}
		}
	}
	return ""
}

// LanguageSeparators returns the separator preset of a language for the
// recursive splitter: regular expressions, coarsest first, in the manner of
// LangChain's RecursiveCharacterTextSplitter.from_language: for markdown,
// HTML and LaTeX LangChain's own; for code, gochunk's definition patterns
// (a line break before a top-level definition, before an indented one,
// blank lines, line breaks, spaces, characters), not LangChain's lists.
func LanguageSeparators(name string) ([]string, error) {
	switch canonicalLanguage(name) {
	case "markdown":
		return []string{`\n#{1,6} `, "```\n", `\n\*\*\*+\n`, `\n---+\n`, `\n___+\n`, `\n\n`, `\n`, ` `, ``}, nil
	case "html":
		return []string{`<body`, `<div`, `<p`, `<br`, `<li`, `<h1`, `<h2`, `<h3`, `<h4`, `<h5`, `<h6`, `<span`, `<table`, `<tr`, `<td`, `<th`, `<ul`, `<ol`, `<header`, `<footer`, `<nav`, `<head`, `<style`, `<script`, `<meta`, `<title`, ``}, nil
	case "latex":
		return []string{`\n\\chapter\{`, `\n\\section\{`, `\n\\subsection\{`, `\n\\subsubsection\{`, `\n\\begin\{enumerate\}`, `\n\\begin\{itemize\}`, `\n\\begin\{description\}`, `\n\\begin\{list\}`, `\n\\begin\{quote\}`, `\n\\begin\{quotation\}`, `\n\\begin\{verse\}`, `\n\\begin\{verbatim\}`, `\n\\begin\{align\}`, `\$\$`, `\$`, ` `, ``}, nil
	}
	l, ok := languages[canonicalLanguage(name)]
	if !ok {
		return nil, fmt.Errorf("%w: no preset for language %q (known: %s)", gochunk.ErrConfig, name, strings.Join(Languages(), ", "))
	}
	return []string{`\n(?:` + l.defs + `)`, `\n[ \t]+(?:` + l.defs + `)`, `\n\n`, `\n`, ` `, ``}, nil
}
