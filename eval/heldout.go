package eval

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Held-out question sets, built from texts every machine that builds
// gochunk has (Go's own documents, test data and source, the system's
// licence texts), with questions whose answers are known spans: for
// judging retrieval settings on text none of their development used.

// SentenceQuestions asks n questions about corpora's prose (seeded): each
// reference is a run of one to three sentences, and its question is three
// to five of the reference's content words (of four letters or more, in
// their order): a keyword query for one passage, as a user who
// remembers a few of its words would type it. Lines without a sentence
// (headings, lists, code) are not asked about.
func SentenceQuestions(corpora []*Corpus, n int, seed uint64) []Question {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	type sent = struct{ start, end int } // bytes
	per := make([][]sent, len(corpora))
	total := 0
	for i, c := range corpora {
		per[i] = sentences(c.Text)
		total += len(per[i])
	}
	if total == 0 || n <= 0 {
		return nil
	}
	var out []Question
	seen := map[string]bool{}
	for tries := 0; len(out) < n && tries < 20*n; tries++ {
		// A corpus in proportion to its sentences, then a sentence.
		k := rng.IntN(total)
		ci := 0
		for k >= len(per[ci]) {
			k -= len(per[ci])
			ci++
		}
		ss := per[ci]
		span := 1 + rng.IntN(3)
		if k+span > len(ss) {
			continue
		}
		a, b := ss[k].start, ss[k+span-1].end
		text := corpora[ci].Text
		ref := text[a:b]
		if strings.Contains(ref, "\n\n") {
			continue // the run crosses a paragraph
		}
		var content []string
		have := map[string]bool{}
		words(ref, func(w string) {
			if utf8.RuneCountInString(w) >= 4 && !stopWords[w] && !have[w] && !isNumber(w) {
				have[w] = true
				content = append(content, w)
			}
		})
		if len(content) < 6 {
			continue
		}
		m := 3 + rng.IntN(3)
		pick := rng.Perm(len(content))[:m]
		sort.Ints(pick)
		q := make([]string, m)
		for j, p := range pick {
			q[j] = content[p]
		}
		qt := strings.Join(q, " ")
		if seen[qt] {
			continue
		}
		seen[qt] = true
		sa := utf8.RuneCountInString(text[:a])
		out = append(out, Question{ID: fmt.Sprintf("%s-%d", corpora[ci].ID, len(out)), Text: qt, References: []Reference{{
			Corpus: corpora[ci].ID, Content: ref, Start: sa, End: sa + utf8.RuneCountInString(ref)}}})
	}
	return out
}

// sentences returns the byte spans of text's sentences of 8 to 80 words:
// runs ending at '.', '!' or '?' before white space, or at a blank line,
// that start with a capital letter.
func sentences(text string) []struct{ start, end int } {
	var out []struct{ start, end int }
	start := -1
	for i, r := range text {
		if start == -2 { // inside a run that does not start a sentence
			if r == '.' || r == '!' || r == '?' || r == '\n' {
				start = -1
			}
			continue
		}
		if start == -1 {
			switch {
			case unicode.IsUpper(r):
				start = i
			case !unicode.IsSpace(r):
				start = -2
			}
			continue
		}
		if r == '\n' && strings.HasPrefix(text[i:], "\n\n") {
			start = -1
			continue
		}
		if (r == '.' || r == '!' || r == '?') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n') {
			s := text[start : i+1]
			n := len(strings.Fields(s))
			if n >= 8 && n <= 80 && !strings.ContainsAny(s, "{}=<>|#*`") {
				out = append(out, struct{ start, end int }{start, i + 1})
			}
			start = -1
		}
	}
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// stopWords are words a keyword question leaves out.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`about above after again against also among another because been before being below
between both cannot could does doing down during each either even every from further have having here hers herself
himself into itself just less like made make many more most much must neither never none only other ought ours
ourselves over same shall should since some such than that their theirs them themselves then there these they this
those though through thus under until upon very what when where whether which while whom whose will with within
without would your yours yourself yourselves`) {
		m[w] = true
	}
	return m
}()

// GoFile is one Go source file of a held-out code set.
type GoFile struct {
	Path, Text string
}

// GoDocOptions configures GoDocQuestions.
type GoDocOptions struct {
	// Questions is how many questions to keep at most (drawn with Seed);
	// 0 keeps all.
	Questions int
	Seed      uint64
	// PerFile makes each file a corpus whose id is its path (as LoadFiles
	// reads a directory of files, for the code chunker), instead of one
	// corpus per directory with each file under a "# path" line (as the
	// codebases set is).
	PerFile bool
}

// GoDocQuestions makes a code data set of Go files: each top-level
// function of 10 or more lines with a doc comment of five words or more
// becomes a question, whose text is the comment and whose reference is
// the function, from its func line to its closing brace; the comment is
// left out of the corpus, so the question is answered by the code alone
// (as a question that describes a function in words is).
func GoDocQuestions(files []GoFile, opt GoDocOptions) ([]*Corpus, []Question) {
	byDir := map[string][]GoFile{}
	for _, f := range files {
		d := filepath.Dir(f.Path)
		if opt.PerFile {
			d = f.Path
		}
		byDir[d] = append(byDir[d], f)
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	var corpora []*Corpus
	var qs []Question
	for _, d := range dirs {
		fs := byDir[d]
		slices.SortFunc(fs, func(a, b GoFile) int { return strings.Compare(a.Path, b.Path) })
		id := strings.NewReplacer("/", "_", ".", "_").Replace(d)
		if opt.PerFile {
			id = d
		}
		var b strings.Builder
		runes := 0
		write := func(s string) {
			b.WriteString(s)
			runes += utf8.RuneCountInString(s)
		}
		for _, f := range fs {
			if !opt.PerFile {
				write("# " + f.Path + "\n\n")
			}
			lines := strings.SplitAfter(f.Text, "\n")
			for i := 0; i < len(lines); i++ {
				// A doc comment directly above a top-level func.
				j := i
				for j < len(lines) && strings.HasPrefix(lines[j], "//") {
					j++
				}
				if j == i || j >= len(lines) || !strings.HasPrefix(lines[j], "func ") {
					write(lines[i])
					continue
				}
				end := j
				if strings.HasSuffix(strings.TrimRight(lines[j], " \r\n"), "}") {
					end = len(lines) // a function of one line: not asked about
				}
				for end < len(lines) && strings.TrimRight(lines[end], "\r\n") != "}" {
					if end > j && (strings.HasPrefix(lines[end], "func ") || strings.HasPrefix(lines[end], "//")) {
						end = len(lines)
						break
					}
					end++
				}
				if end >= len(lines) || end-j+1 < 10 {
					for _, l := range lines[i:j] {
						write(l)
					}
					i = j - 1
					continue
				}
				var doc []string
				for _, l := range lines[i:j] {
					l = strings.TrimSpace(strings.TrimPrefix(l, "//"))
					if strings.HasPrefix(l, "Deprecated:") || strings.HasPrefix(l, "go:") {
						break
					}
					doc = append(doc, l)
				}
				question := strings.Join(strings.Fields(strings.Join(doc, " ")), " ")
				fn := strings.Join(lines[j:end+1], "")
				fn = strings.TrimRight(fn, "\n")
				start := runes
				write(fn)
				if len(strings.Fields(question)) >= 5 {
					qs = append(qs, Question{ID: fmt.Sprintf("%s-%d", id, len(qs)), Text: question, References: []Reference{{
						Corpus: id, Content: fn, Start: start, End: start + utf8.RuneCountInString(fn)}}})
				}
				write(strings.TrimPrefix(strings.Join(lines[j:end+1], ""), fn))
				i = end
			}
			if !opt.PerFile {
				write("\n")
			}
		}
		corpora = append(corpora, &Corpus{ID: id, Text: b.String()})
	}
	if n := opt.Questions; n > 0 && len(qs) > n {
		rng := rand.New(rand.NewPCG(opt.Seed, opt.Seed^0xc0de))
		pick := rng.Perm(len(qs))[:n]
		sort.Ints(pick)
		kept := make([]Question, n)
		for i, p := range pick {
			kept[i] = qs[p]
		}
		qs = kept
	}
	return corpora, qs
}

// ReadGoFiles reads the non-test Go files of the packages (directories
// under root, such as runtime.GOROOT()/src), skipping generated ones;
// paths are relative to root's parent. A package not found is left out.
func ReadGoFiles(root string, packages []string) ([]GoFile, error) {
	var out []GoFile
	for _, p := range packages {
		dir := filepath.Join(root, filepath.FromSlash(p))
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return nil, fmt.Errorf("held-out Go file %s: %w", filepath.Join(dir, name), err)
			}
			if strings.Contains(string(b[:min(len(b), 400)]), "Code generated") {
				continue
			}
			out = append(out, GoFile{Path: filepath.ToSlash(filepath.Join(filepath.Base(root), p, name)), Text: string(b)})
		}
	}
	return out, nil
}
