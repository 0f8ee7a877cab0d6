package split

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
)

// chonkieVersion is the release of npm @chonkiejs/chunk the fast chunker is
// compared with.
const chonkieVersion = "0.9.3"

// chonkieHarness reads cases as JSON on stdin and prints, for each, the
// flat offsets of the library's chunk_offsets or chunk_offsets_pattern.
const chonkieHarness = `
import fs from 'fs';
import path from 'path';
const pkg = path.join(process.argv[2], 'node_modules', '@chonkiejs', 'chunk', 'pkg');
const m = await import(path.join(pkg, 'chonkiejs_chunk.js'));
m.initSync({ module: fs.readFileSync(path.join(pkg, 'chonkiejs_chunk_bg.wasm')) });
const cases = JSON.parse(fs.readFileSync(0, 'utf8'));
const enc = new TextEncoder();
const out = cases.map(c => {
  const text = Buffer.from(c.text, 'base64');
  const bytes = new Uint8Array(text.buffer, text.byteOffset, text.length);
  const f = c.pattern
    ? m.chunk_offsets_pattern(bytes, c.size, enc.encode(c.pattern), c.prefix, c.consecutive, c.ff)
    : m.chunk_offsets(bytes, c.size, c.delims, c.prefix, c.consecutive, c.ff);
  return Array.from(f);
});
process.stdout.write(JSON.stringify(out));
`

type chonkieCase struct {
	Text        string `json:"text"` // base64
	Size        int    `json:"size"`
	Delims      string `json:"delims"`
	Pattern     string `json:"pattern,omitempty"`
	Prefix      bool   `json:"prefix"`
	Consecutive bool   `json:"consecutive"`
	FF          bool   `json:"ff"`
	raw         string
}

// chonkie installs the npm package outside the repository (in
// $GOCHUNK_NPM_DIR, else the user's cache directory) and returns a
// function that runs the library on cases; it skips when node or npm is
// missing.
func chonkie(t *testing.T) func([]chonkieCase) [][]int {
	t.Helper()
	node, err1 := exec.LookPath("node")
	npm, err2 := exec.LookPath("npm")
	if err1 != nil || err2 != nil {
		t.Skip("skipping: node and npm are needed to run the reference @chonkiejs/chunk (apt-get install nodejs npm)")
	}
	dir := os.Getenv("GOCHUNK_NPM_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("skipping: no directory to install @chonkiejs/chunk into: %v", err)
		}
		dir = filepath.Join(cache, "gochunk-tests", "npm")
	}
	pkgJSON := filepath.Join(dir, "node_modules", "@chonkiejs", "chunk", "package.json")
	if b, err := os.ReadFile(pkgJSON); err != nil || !strings.Contains(string(b), `"version": "`+chonkieVersion+`"`) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts", "@chonkiejs/chunk@"+chonkieVersion)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("skipping: npm could not install @chonkiejs/chunk@%s: %v\n%s", chonkieVersion, err, out)
		}
	}
	script := filepath.Join(t.TempDir(), "harness.mjs")
	if err := os.WriteFile(script, []byte(chonkieHarness), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(cases []chonkieCase) [][]int {
		in, _ := json.Marshal(cases)
		cmd := exec.Command(node, script, dir)
		cmd.Stdin = strings.NewReader(string(in))
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("reference harness: %v", err)
		}
		var res [][]int
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("reference harness output: %v", err)
		}
		return res
	}
}

// The fast chunker's boundaries are the library's for every option
// combination, on the development corpora and on generated texts, except
// where the library cuts inside a UTF-8 character: those cases are
// counted and shown.
func TestFastConformance(t *testing.T) {
	run := chonkie(t)
	var cases []chonkieCase
	add := func(text string, size int, delims, pattern string, flags int) {
		cases = append(cases, chonkieCase{Text: base64.StdEncoding.EncodeToString([]byte(text)), Size: size, Delims: delims, Pattern: pattern,
			Prefix: flags&1 != 0, Consecutive: flags&2 != 0, FF: flags&4 != 0, raw: text})
	}
	corpora := 0
	for _, name := range []string{"wikitexts.md", "state_of_the_union.md", "chatlogs.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", name))
		if err != nil {
			continue
		}
		corpora++
		for _, size := range []int{64, 300, 1000, 4096} {
			for flags := range 8 {
				for _, d := range []string{"\n.?", " ", "\n", ".?!;\n"} {
					add(string(b), size, d, "", flags)
				}
				for _, p := range []string{". ", "\n\n", "▁"} {
					add(string(b), size, "", p, flags)
				}
			}
		}
	}
	if corpora == 0 {
		t.Log("the development corpora (../shared/eval/chroma) are absent: generated texts only")
	}
	r := rand.New(rand.NewPCG(7, 11))
	alphabet := []string{"a", "b", "c", " ", " ", ".", "\n", "?", "!", "é", "▁", "日", "🎉", "aa"}
	for range 3000 {
		var sb strings.Builder
		for range 1 + r.IntN(120) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		flags := r.IntN(8)
		size := 1 + r.IntN(24)
		switch r.IntN(4) {
		case 0:
			add(sb.String(), size, "\n.?", "", flags)
		case 1:
			add(sb.String(), size, " .", "", flags)
		case 2:
			add(sb.String(), size, "", "▁", flags)
		default:
			add(sb.String(), size, "", "aa", flags)
		}
	}
	want := run(cases)
	if len(want) != len(cases) {
		t.Fatalf("%d results for %d cases", len(want), len(cases))
	}
	same, insideChar, insideCorpora := 0, 0, 0
	nCorpora := len(cases) - 3000
	for i, c := range cases {
		f, err := NewFast(FastConfig{Size: c.Size, Delimiters: c.Delims, Pattern: c.Pattern, Prefix: c.Prefix, Consecutive: c.Consecutive, ForwardFallback: c.FF}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Offsets(context.Background(), gochunk.Document{Text: c.raw})
		cuts := false
		for _, o := range want[i] {
			if o < len(c.raw) && !utf8.RuneStart(c.raw[o]) {
				cuts = true
			}
		}
		label := fmt.Sprintf("%.40q size %d delims %q pattern %q prefix %v consecutive %v forward_fallback %v", c.raw, c.Size, c.Delims, c.Pattern, c.Prefix, c.Consecutive, c.FF)
		switch {
		case cuts:
			insideChar++
			if i < nCorpora {
				insideCorpora++
			}
			if insideChar <= 5 {
				t.Logf("the library cuts inside a character: %s\n  library %.200v\n  gochunk %.200v (err %v)", label, fmt.Sprint(want[i]), fmt.Sprint(got), err)
			}
		case err != nil || !slices.Equal(got, want[i]):
			k := 0
			for k < min(len(got), len(want[i])) && got[k] == want[i][k] {
				k++
			}
			t.Errorf("%s\n  first difference at offset %d: library %.200v\n  gochunk %.200v (err %v)", label, k,
				fmt.Sprint(want[i][max(0, k-4):]), fmt.Sprint(got[max(0, k-4):]), err)
		default:
			same++
		}
	}
	t.Logf("%d cases (%d on the development corpora): %d identical, %d where the library cuts inside a UTF-8 character (%d of them on the corpora; gochunk ends at the character's start)",
		len(cases), nCorpora, same, insideChar, insideCorpora)
	if same+insideChar != len(cases) {
		t.Errorf("%d cases differ", len(cases)-same-insideChar)
	}
}
