package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
)

// The documentation's conventions are described in docs/development.md
// ("Documentation that is tested"); these tests hold README.md and every
// page of docs/ to them.

// repoRoot is the repository's root, from this package's directory.
var repoRoot = filepath.Join("..", "..")

// docPage is one markdown file of the documentation.
type docPage struct {
	path  string // relative to the repository's root
	lines []string
}

func docPages(t *testing.T) []docPage {
	t.Helper()
	names := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		rel, _ := filepath.Rel(repoRoot, m)
		names = append(names, rel)
	}
	var pages []docPage
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(repoRoot, n))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, docPage{path: filepath.ToSlash(n), lines: strings.Split(string(b), "\n")})
	}
	return pages
}

// docExample is a shell example marked runnable.
type docExample struct {
	page   string
	line   int  // of the opening fence, 1-based
	shared bool // reads ../shared
	body   []string
}

var runMarker = regexp.MustCompile(`^<!-- run(: shared)? -->$`)

// docExamples returns the page's shell blocks marked runnable, and fails on a
// marker that is not followed by a shell block.
func docExamples(t *testing.T, p docPage) []docExample {
	var out []docExample
	for i, l := range p.lines {
		m := runMarker.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		if i+1 >= len(p.lines) || strings.TrimSpace(p.lines[i+1]) != "```sh" {
			t.Errorf("%s:%d: a run marker must be followed by a ```sh block", p.path, i+1)
			continue
		}
		ex := docExample{page: p.path, line: i + 2, shared: m[1] != ""}
		j := i + 2
		for ; j < len(p.lines) && strings.TrimSpace(p.lines[j]) != "```"; j++ {
			ex.body = append(ex.body, p.lines[j])
		}
		if j == len(p.lines) {
			t.Errorf("%s:%d: the example's block is not closed", p.path, i+2)
			continue
		}
		out = append(out, ex)
	}
	return out
}

// docStep is a command of an example and, where the example shows it, the
// output it must print.
type docStep struct {
	cmd        string
	want       string
	wantOutput bool
}

// steps splits an example into commands: in a block with lines starting
// with "$ ", each such line is a command and the lines after it its output;
// a block without them is one script.
func (ex docExample) steps() []docStep {
	prompted := false
	for _, l := range ex.body {
		if strings.HasPrefix(l, "$ ") {
			prompted = true
			break
		}
	}
	if !prompted {
		return []docStep{{cmd: strings.Join(ex.body, "\n")}}
	}
	var steps []docStep
	for _, l := range ex.body {
		if c, ok := strings.CutPrefix(l, "$ "); ok {
			steps = append(steps, docStep{cmd: c, wantOutput: true})
		} else if len(steps) > 0 {
			steps[len(steps)-1].want += l + "\n"
		}
	}
	return steps
}

// TestDocsExamples runs every shell example of the README and docs/ marked
// runnable against the binary built from this checkout, and compares what it
// prints with the output the example shows.
func TestDocsExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds the binary and runs the documentation's examples")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("skipping: no bash to run the examples with")
	}
	var examples []docExample
	for _, p := range docPages(t) {
		examples = append(examples, docExamples(t, p)...)
	}
	if len(examples) == 0 {
		t.Fatal("no runnable example found: the README's quick start should be one")
	}
	bin := buildBinary(t)
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(root, "..", "shared")
	_, serr := os.Stat(shared)
	haveShared := serr == nil
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")

	for _, ex := range examples {
		t.Run(fmt.Sprintf("%s:%d", ex.page, ex.line), func(t *testing.T) {
			if ex.shared && !haveShared {
				t.Skipf("skipping: the example reads ../shared, which is not beside the repository (%s)", shared)
			}
			dir := exampleDir(t, root, shared, haveShared)
			tmp := t.TempDir()
			for _, st := range ex.steps() {
				cmd := strings.ReplaceAll(st.cmd, "go run ./cmd/gochunk", "gochunk")
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				c := exec.CommandContext(ctx, bash, "-e", "-o", "pipefail", "-c", cmd)
				c.Dir = dir
				c.Env = append(os.Environ(), "PATH="+path, "TMPDIR="+tmp)
				var stdout, stderr bytes.Buffer
				c.Stdout, c.Stderr = &stdout, &stderr
				err := c.Run()
				cancel()
				if err != nil {
					t.Fatalf("%s:%d: the example fails (%v):\n%s\nstderr:\n%s", ex.page, ex.line, err, cmd, stderr.String())
				}
				if st.wantOutput && strings.TrimRight(stdout.String(), "\n") != strings.TrimRight(st.want, "\n") {
					t.Errorf("%s:%d: %s\nprints:\n%s\nthe page shows:\n%s", ex.page, ex.line, cmd, stdout.String(), st.want)
				}
			}
		})
	}
}

// exampleDir makes a directory where the repository's files are visible
// under their names (so README.md and docs/ resolve) and anything an example
// writes stays out of the working tree; ../shared resolves as from the
// repository.
func exampleDir(t *testing.T, root, shared string, haveShared bool) string {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "work")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if haveShared {
		if err := os.Symlink(shared, filepath.Join(base, "shared")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// docTable is a markdown table of a page, with the lines between it and the
// heading or table before it (its lead-in) and those between it and the
// heading before it (its section so far).
type docTable struct {
	line    int // of the header row, 1-based
	header  string
	rows    []string
	leadIn  []string
	section []string
}

var tableRule = regexp.MustCompile(`^\|[-:| ]+\|\s*$`)

// docTables returns the tables of a page, outside code blocks.
func docTables(p docPage) []docTable {
	var tables []docTable
	var lead, section []string
	fence := false
	for i := 0; i < len(p.lines); i++ {
		l := p.lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
		} else if !fence && strings.HasPrefix(l, "#") {
			lead, section = nil, nil
			continue
		} else if !fence && strings.HasPrefix(l, "|") && i+1 < len(p.lines) && tableRule.MatchString(p.lines[i+1]) {
			tb := docTable{line: i + 1, header: l, leadIn: lead, section: section}
			i += 2
			for ; i < len(p.lines) && strings.HasPrefix(p.lines[i], "|"); i++ {
				tb.rows = append(tb.rows, p.lines[i])
			}
			i--
			tables = append(tables, tb)
			lead = nil
			section = section[:len(section):len(section)] // tb.section stays as it is
			continue
		}
		lead = append(lead, l)
		section = append(section, l)
	}
	return tables
}

var (
	measuredHeader = regexp.MustCompile(`(?i)\b(recall|precision|purity|iou|pk|windowdiff|time|memory|measurement|latency|seconds|speed|first run|tokens/s|documents/s|chunks/s|MB/s)\b|\b\d+ MB\b`)
	measuredCell   = regexp.MustCompile(`\d(\s?(ms|s|MB|GB|KB|kB|MB/s|GB/s|%)\b|\s?±)|\d\s*%`)
	measuredLine   = regexp.MustCompile("Measured at `([0-9a-f]{7,40})`")
	commandSpan    = regexp.MustCompile("Measured at `[0-9a-f]{7,40}`[^`]*\\bwith\\b[^`]*`[^`]+`")
)

// measured tells whether a table holds measured figures: its header names a
// measure, or a cell holds a figure with a unit or an interval.
func (tb docTable) measured() bool {
	if measuredHeader.MatchString(tb.header) {
		return true
	}
	for _, r := range tb.rows {
		if measuredCell.MatchString(r) {
			return true
		}
	}
	return false
}

// TestDocsMeasuredTables checks that every table of measured figures in the
// README and docs/ says, in a line above it in its section, the commit it was
// measured at and the command that reproduces it, and that the commit exists.
func TestDocsMeasuredTables(t *testing.T) {
	_, gerr := os.Stat(filepath.Join(repoRoot, ".git"))
	git, lerr := exec.LookPath("git")
	known := map[string]bool{}
	exists := func(commit string) bool {
		if gerr != nil || lerr != nil {
			return true // no repository to ask: the form is checked alone
		}
		ok, seen := known[commit]
		if !seen {
			ok = exec.Command(git, "-C", repoRoot, "cat-file", "-e", commit+"^{commit}").Run() == nil
			known[commit] = ok
		}
		return ok
	}
	for _, p := range docPages(t) {
		for _, problem := range measuredTableProblems(p, exists) {
			t.Error(problem)
		}
	}
}

// measuredTableProblems returns what is wrong with the page's tables of
// measured figures: no "Measured at" line, no command, or a commit that
// exists does not know.
func measuredTableProblems(p docPage, exists func(commit string) bool) []string {
	var problems []string
	for _, tb := range docTables(p) {
		if notMeasured(tb.leadIn) || !tb.measured() {
			continue
		}
		where := fmt.Sprintf("%s:%d", p.path, tb.line)
		// The nearest "Measured at" line above the table in its section
		// dates it (one line may date several tables of one run); its
		// command is on that line or in a sh block of the section before
		// the table.
		var commit string
		hasCommand, shBlock := false, false
		for _, l := range tb.section {
			if m := measuredLine.FindStringSubmatch(l); m != nil {
				commit, hasCommand = m[1], commandSpan.MatchString(l)
			}
			if strings.TrimSpace(l) == "```sh" {
				shBlock = true
			}
		}
		switch {
		case commit == "":
			problems = append(problems, fmt.Sprintf("%s: a table of measured figures without a line \"Measured at `COMMIT` with `COMMAND`\" above it (see docs/development.md)", where))
		case !hasCommand && !shBlock:
			problems = append(problems, fmt.Sprintf("%s: the table's \"Measured at\" line names no command (in backticks after \"with\"), and no sh block precedes the table in its section", where))
		case !exists(commit):
			problems = append(problems, fmt.Sprintf("%s: the table was measured at %s, which is no commit of this repository", where, commit))
		}
	}
	return problems
}

// The convention's checker on pages made for it: each kind of problem is
// found, and what the convention allows passes.
func TestMeasuredTableProblems(t *testing.T) {
	exists := func(c string) bool { return c != "deadbee" }
	cases := []struct {
		name, page string
		want       []string // substrings of the problems, in order
	}{
		{"dated", "## A\n\nMeasured at `abc1234` with `gochunk bench x`.\n\n| chunker | time |\n|---|---:|\n| a | 1 s |\n", nil},
		{"undated", "## A\n\n| chunker | time |\n|---|---:|\n| a | 1 s |\n", []string{"without a line"}},
		{"unit in a cell", "## A\n\n| name | value |\n|---|---|\n| a | 12 MB |\n", []string{"without a line"}},
		{"reference table", "## A\n\n| name | default |\n|---|---|\n| size | 512 |\n", nil},
		{"marked not measured", "## A\n\n<!-- not measured -->\n\n| name | value |\n|---|---|\n| a | 12 MB |\n", nil},
		{"no command", "## A\n\nMeasured at `abc1234`.\n\n| chunker | time |\n|---|---:|\n| a | 1 s |\n", []string{"names no command"}},
		{"command above", "## A\n\n```sh\ngochunk bench\n```\n\nMeasured at `abc1234` with the command above.\n\n| chunker | time |\n|---|---:|\n| a | 1 s |\n", nil},
		{"unknown commit", "## A\n\nMeasured at `deadbee` with `gochunk bench`.\n\n| chunker | time |\n|---|---:|\n| a | 1 s |\n", []string{"no commit"}},
		{"one line, two tables", "## A\n\nMeasured at `abc1234` with `gochunk bench`.\n\n| chunker | time |\n|---|---:|\n| a | 1 s |\n\n| chunker | memory |\n|---|---:|\n| a | 9 MB |\n", nil},
		{"dated in another section", "## A\n\nMeasured at `abc1234` with `gochunk bench`.\n\n## B\n\n| chunker | time |\n|---|---:|\n| a | 1 s |\n", []string{"without a line"}},
		{"a table in a code block", "## A\n\n```\n| chunker | time |\n|---|---:|\n| a | 1 s |\n```\n", nil},
	}
	for _, c := range cases {
		got := measuredTableProblems(docPage{path: "x.md", lines: strings.Split(c.page, "\n")}, exists)
		if len(got) != len(c.want) {
			t.Errorf("%s: problems %q, want %d", c.name, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: problem %q lacks %q", c.name, got[i], w)
			}
		}
	}
}

// notMeasured tells whether the table's lead-in ends with the marker of a
// reference table that the detector would take for a measured one.
func notMeasured(leadIn []string) bool {
	for i := len(leadIn) - 1; i >= 0; i-- {
		l := strings.TrimSpace(leadIn[i])
		if l == "" {
			continue
		}
		return l == "<!-- not measured -->"
	}
	return false
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks checks that every relative link of the README and docs/
// names a file that exists and, for a link into a markdown page, a heading
// that page has.
func TestDocsLinks(t *testing.T) {
	pages := docPages(t)
	anchors := map[string]map[string]bool{}
	for _, p := range pages {
		anchors[p.path] = headingAnchors(p)
	}
	for _, p := range pages {
		fence := false
		for i, l := range p.lines {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fence = !fence
			}
			if fence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				dest := p.path
				if file != "" {
					dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(p.path), file)))
					if _, err := os.Stat(filepath.Join(repoRoot, dest)); err != nil {
						t.Errorf("%s:%d: link to %s: no such file", p.path, i+1, target)
						continue
					}
				}
				if anchor == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				a, ok := anchors[dest]
				if !ok {
					b, err := os.ReadFile(filepath.Join(repoRoot, dest))
					if err != nil {
						t.Errorf("%s:%d: link to %s: %v", p.path, i+1, target, err)
						continue
					}
					a = headingAnchors(docPage{path: dest, lines: strings.Split(string(b), "\n")})
					anchors[dest] = a
				}
				if !a[anchor] {
					t.Errorf("%s:%d: link to %s: %s has no heading with that anchor", p.path, i+1, target, dest)
				}
			}
		}
	}
}

// headingAnchors returns the anchors GitHub gives the page's headings:
// lower case, punctuation dropped, spaces as hyphens, a repeated one
// numbered.
func headingAnchors(p docPage) map[string]bool {
	out := map[string]bool{}
	fence := false
	for _, l := range p.lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		for n := 1; out[a]; n++ {
			a = fmt.Sprintf("%s-%d", b.String(), n)
		}
		out[a] = true
	}
	return out
}

// Examples are found by their marker and split into commands and the output
// each shows; a block without prompts is one script.
func TestDocExampleSteps(t *testing.T) {
	page := docPage{path: "x.md", lines: strings.Split("text\n\n<!-- run -->\n```sh\n$ echo a\na\n$ printf 'b\\nc\\n'\nb\nc\n```\n\n```sh\nnot marked\n```\n\n<!-- run: shared -->\n```sh\nls ../shared\necho done\n```\n", "\n")}
	exs := docExamples(t, page)
	if len(exs) != 2 {
		t.Fatalf("%d examples, want 2: %+v", len(exs), exs)
	}
	if exs[0].shared || !exs[1].shared || exs[0].line != 4 {
		t.Errorf("markers read wrong: %+v", exs)
	}
	got := exs[0].steps()
	want := []docStep{{cmd: "echo a", want: "a\n", wantOutput: true}, {cmd: `printf 'b\nc\n'`, want: "b\nc\n", wantOutput: true}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("steps %+v, want %+v", got, want)
	}
	if s := exs[1].steps(); len(s) != 1 || s[0].wantOutput || s[0].cmd != "ls ../shared\necho done" {
		t.Errorf("script steps %+v", s)
	}
}
