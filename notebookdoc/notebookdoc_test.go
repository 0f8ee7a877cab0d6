package notebookdoc

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
)

// joined is the document's text as layout.Assemble makes it: the
// elements' texts, trimmed (a list item keeps its indentation), joined by
// blank lines.
func joined(els []gochunk.Element) string {
	var parts []string
	for _, e := range els {
		t := strings.TrimRight(e.Text, " \t\r\n")
		if e.Type != "list_item" {
			t = strings.TrimSpace(t)
		}
		if t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// The notebooks of testdata read as their golden text: every cell type,
// Markdown structure, code with its language, text outputs kept, images
// left out (nbformat 4 and 3).
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.ipynb")
	if len(files) == 0 {
		t.Fatal("no notebooks in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			els, err := Elements(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			sb.WriteString(joined(els) + "\n\n---- elements: type and level\n")
			for _, e := range els {
				sb.WriteString(e.Type + " " + string(rune('0'+e.Level)) + "\n")
			}
			golden := strings.TrimSuffix(f, ".ipynb") + ".golden"
			if *update {
				os.WriteFile(golden, []byte(sb.String()), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if sb.String() != string(want) {
				t.Errorf("got\n%s\nwant\n%s", sb.String(), want)
			}
		})
	}
}

func text(t *testing.T, nb string) string {
	t.Helper()
	els, err := Elements(context.Background(), []byte(nb))
	if err != nil {
		t.Fatalf("%v\n%s", err, nb)
	}
	return joined(els)
}

func TestCells(t *testing.T) {
	const head, tail = `{"nbformat": 4, "nbformat_minor": 2, "metadata": {"kernelspec": {"language": "julia"}}, "cells": [`, `]}`
	for _, c := range []struct{ name, cells, want string }{
		{"source as one string", `{"cell_type": "markdown", "source": "# T\n\ntext"}`, "# T\n\ntext"},
		{"kernel's language on code", `{"cell_type": "code", "source": ["x = 1"], "outputs": []}`, "```julia\nx = 1\n```"},
		{"a cell magic's language", `{"cell_type": "code", "source": "%%bash\nls", "outputs": []}, {"cell_type": "code", "source": "%%script /usr/bin/ruby\nputs 1", "outputs": []}, {"cell_type": "code", "source": "%%timeit\nf()", "outputs": []}`, "```bash\n%%bash\nls\n```\n\n```ruby\n%%script /usr/bin/ruby\nputs 1\n```\n\n```julia\n%%timeit\nf()\n```"},
		{"a fence longer than the code's backticks", `{"cell_type": "code", "source": "s = \"` + "```" + `\"", "outputs": []}`, "````julia\ns = \"```\"\n````"},
		{"stream outputs joined into one block", `{"cell_type": "code", "source": "f()", "outputs": [{"output_type": "stream", "name": "stdout", "text": "a\n"}, {"output_type": "stream", "name": "stderr", "text": "b"}]}`, "```julia\nf()\n```\n\n```text\na\nb\n```"},
		{"a progress bar kept as last written", `{"cell_type": "code", "source": "f()", "outputs": [{"output_type": "stream", "text": "10%\r50%\r100%\nok\n"}]}`, "```julia\nf()\n```\n\n```text\n100%\nok\n```"},
		{"html output read as HTML", `{"cell_type": "code", "source": "df", "outputs": [{"output_type": "execute_result", "data": {"text/html": "<table><tr><th>a</th></tr><tr><td>1</td></tr></table>"}}]}`, "```julia\ndf\n```\n\n| a |\n|---|\n| 1 |"},
		{"text/plain preferred to html", `{"cell_type": "code", "source": "df", "outputs": [{"output_type": "execute_result", "data": {"text/html": "<b>x</b>", "text/plain": "   a\n0  1"}}]}`, "```julia\ndf\n```\n\n```text\n   a\n0  1\n```"},
		{"an image and its stand-in leave nothing", `{"cell_type": "code", "source": "plot()", "outputs": [{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure size 640x480 with 1 Axes>"}}]}`, "```julia\nplot()\n```"},
		{"an empty markdown cell", `{"cell_type": "markdown", "source": []}, {"cell_type": "markdown", "source": ["after"]}`, "after"},
		{"unknown cell type skipped", `{"cell_type": "widget", "source": "x"}, {"cell_type": "markdown", "source": "kept"}`, "kept"},
		{"an html comment across blank lines", `{"cell_type": "markdown", "source": "<!--\n Licensed under\n\n the License.\n-->\n\n# Title"}`, "# Title"},
		{"a pre block across blank lines", `{"cell_type": "markdown", "source": "<pre>\na\n\nb\n</pre>\nafter"}`, "```\na\n\nb\n```\n\nafter"},
		{"html block with nothing visible", `{"cell_type": "markdown", "source": "<img src=\"a.png\">\n\ntext"}`, "text"},
		{"list items with lazy continuations", `{"cell_type": "markdown", "source": "- one\ncontinued\n- two\n  - nested"}`, "- one\ncontinued\n\n- two\n\n  - nested"},
		{"fence left open runs to the end", `{"cell_type": "markdown", "source": "~~~\ncode\n\nmore"}`, "~~~\ncode\n\nmore"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := text(t, head+c.cells+tail); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// Each broken notebook is an error that says what is wrong and what to
// do: JSON cut short, JSON that does not parse (where), a notebook of
// another nbformat (a *VersionError), JSON that is no notebook. A value
// of the wrong type is named by its cell and field, at its line and
// column in the file; byte offsets count a byte order mark.
func TestErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/analysis.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, data string
		want       []string
	}{
		{"truncated", string(good[:len(good)/2]), []string{"not a readable Jupyter notebook", "cut short", "saved or copied whole"}},
		{"syntax", "{\n \"nbformat\": 4,\n \"cells\": [}\n}", []string{"does not parse at line 3, column 12", "json.tool"}},
		{"no nbformat", `{"cells": []}`, []string{`no "nbformat"`}},
		{"cells not a list", `{"nbformat": 4, "cells": {}}`, []string{"cells: want a list, found a JSON object at line 1, column 26"}},
		{"source a number", `{"nbformat": 4, "cells": [{"cell_type": "code", "source": 3}]}`, []string{"not a readable Jupyter notebook", "a string or a list of strings"}},
		// The field, the cell and where they are in the file.
		{"source a number, third cell", "{\"nbformat\": 4, \"cells\": [\n{\"cell_type\": \"raw\", \"source\": \"a\"},\n{\"cell_type\": \"raw\", \"source\": [\"b\"]},\n{\"cell_type\": \"code\", \"source\": 5}]}",
			[]string{"cell 3: source: want a string or a list of strings, found a JSON number at line 4, column 33"}},
		{"a number in source's list", "{\"nbformat\": 4, \"cells\": [\n{\"cell_type\": \"raw\", \"source\": \"a\"},\n  {\"cell_type\": \"markdown\", \"source\": [\"a\\n\", 5]}]}",
			[]string{"cell 2: source: want a string or a list of strings, found a JSON number at line 3, column 47"}},
		{"output text an object", "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": \"x\",\n \"outputs\": [{\"output_type\": \"stream\", \"text\": {}}]}]}",
			[]string{"cell 1: outputs.text: want a string or a list of strings, found a JSON object at line 2, column 48"}},
		{"nbformat 3 cells", "{\"nbformat\": 3, \"worksheets\": [{\"cells\": [{\"cell_type\": \"code\", \"input\": \"x\"}]},\n {\"cells\": [{\"cell_type\": \"markdown\", \"source\": true}]}]}",
			[]string{"cell 2: source: want a string or a list of strings, found a JSON bool at line 2, column 49"}},
		{"BOM, not UTF-8", "\xEF\xBB\xBF{\"nbformat\": 4,\n\"cells\": [\"caf\xe9\"]}", []string{"invalid UTF-8 at byte 33 (line 2, column 15)"}},
		{"BOM, cut short", "\xEF\xBB\xBF{\"nbformat\": 4, \"cells\": [", []string{"cut short (it ends at byte 29 "}},
		{"not an object", `[1, 2]`, []string{"not a readable Jupyter notebook"}},
		{"not UTF-8", "{\"nbformat\": 4,\n\"cells\": [\"caf\xe9\"]}", []string{"invalid UTF-8 at byte 30 (line 2, column 15)", "iconv"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Elements(context.Background(), []byte(c.data))
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("%v, want ErrFormat", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
	_, err = Elements(context.Background(), []byte(`{"nbformat": 5, "cells": []}`))
	var ve *VersionError
	if !errors.As(err, &ve) || ve.NBFormat != "5" || !strings.Contains(err.Error(), "nbconvert --to notebook --nbformat 4") {
		t.Errorf("nbformat 5: %v", err)
	}
}

func TestIs(t *testing.T) {
	for data, want := range map[string]bool{
		"\xEF\xBB\xBF {\"cells\": [], \"nbformat\": 4}": true,
		`{"nbformat": 3, "worksheets": []}`:             true,
		`{"key": "value"}`:                              false,
		`["nbformat", "cells"]`:                         false,
		`{"nbformat": 4}`:                               false,
		``:                                              false,
	} {
		if Is([]byte(data)) != want {
			t.Errorf("Is(%q) = %v", data, !want)
		}
	}
}

// The text is counted against the reader limits, as the other readers'
// is; a cancelled context stops the read.
func TestBoundsAndCancel(t *testing.T) {
	cell := `{"cell_type": "markdown", "source": "` + strings.Repeat("word ", 100) + `"}`
	nb := `{"nbformat": 4, "cells": [` + strings.Repeat(cell+",", 99) + cell + `]}`
	b := htmldoc.NewBudget(htmldoc.Limits{MaxText: 10_000, MinText: 1}, int64(len(nb)))
	if _, err := ElementsWithin(context.Background(), []byte(nb), b); !errors.Is(err, htmldoc.ErrTooLarge) {
		t.Errorf("over MaxText: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Elements(ctx, []byte(nb)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func FuzzElements(f *testing.F) {
	for _, p := range []string{"testdata/analysis.ipynb", "testdata/legacy_v3.ipynb"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"nbformat": 4, "cells": [{"cell_type": "markdown", "source": "| a |\n|---|\n<p>x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		els, err := Elements(context.Background(), data)
		if err != nil {
			return
		}
		for _, e := range els {
			if !utf8.ValidString(e.Text) || strings.TrimSpace(e.Text) == "" {
				t.Fatalf("element %q: empty or invalid UTF-8", e.Text)
			}
		}
	})
}

// A field nbformat 4 does not have, of any type (a stray "level": "2",
// "input": {}), is ignored, as Jupyter ignores it, not a reason to refuse
// the notebook; nbformat 3's own (a heading cell's level) are read.
func TestUnknownFields(t *testing.T) {
	nb := `{"nbformat": 4, "metadata": {"language": {}}, "cells": [{"cell_type": "markdown", "level": "2", "language": 3, "input": {}, "source": "# T"},
 {"cell_type": "code", "source": "x", "outputs": [{"output_type": "execute_result", "html": 5, "markdown": [1], "data": {"text/plain": "1"}}]}]}`
	els, err := Elements(context.Background(), []byte(nb))
	if err != nil || len(els) != 3 || els[0].Text != "# T" || els[2].Text != "```text\n1\n```" {
		t.Errorf("%+v, %v", els, err)
	}
	v3 := `{"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "heading", "level": 2, "source": "Sub"}, {"cell_type": "heading", "level": "3", "source": "Sub sub"}]}]}`
	els, err = Elements(context.Background(), []byte(v3))
	if err != nil || len(els) != 2 || els[0].Text != "## Sub" || els[1].Text != "### Sub sub" {
		t.Errorf("nbformat 3: %+v, %v", els, err)
	}
}
