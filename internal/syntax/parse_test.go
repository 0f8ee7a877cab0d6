//go:build cgo

package syntax

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/gochunk/gochunk/internal/memtest"
)

// goSource returns n top-level Go declarations: functions with bodies of
// statements, types, comments between them.
func goSource(n int) string {
	var b strings.Builder
	b.WriteString("package p\n\nimport \"fmt\"\n\n")
	for i := range n {
		fmt.Fprintf(&b, "// F%d adds things.\nfunc F%d(a, b int) (int, error) {\n\tif a > b {\n\t\treturn a - b, nil\n\t}\n\tfor i := 0; i < a; i++ {\n\t\tb += i * %d\n\t}\n\tfmt.Println(\"F%d\", a, b)\n", i, i, i, i)
		for k := range 12 {
			fmt.Fprintf(&b, "\tif b > %d {\n\t\tb = g(b, a, %d)\n\t}\n", k, i)
		}
		fmt.Fprintf(&b, "\treturn a + b, nil\n}\n\ntype T%d struct {\n\tX, Y int\n\tName string\n}\n\n", i)
	}
	return b.String()
}

// plainNode is a node with its kind and children spelled out.
type plainNode struct {
	Start, End int
	Kind       string
	Named      bool
	Children   []int32
}

// plain spells out a tree's nodes.
func plain(t *Tree) []plainNode {
	out := make([]plainNode, len(t.Nodes))
	for i, n := range t.Nodes {
		out[i] = plainNode{Start: n.Start, End: n.End, Kind: t.Kind(i), Named: n.Named, Children: t.Children(i)}
		if len(out[i].Children) == 0 {
			out[i].Children = nil
		}
	}
	return out
}

// plainTree builds the tree as the binding hands it out, node by node
// from the root with Child.
func plainTree(t *testing.T, lang string, src []byte, leaf int) []plainNode {
	t.Helper()
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(grammars[lang]())
	st, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var nodes []plainNode
	var add func(n *sitter.Node) int32
	add = func(n *sitter.Node) int32 {
		i := int32(len(nodes))
		nodes = append(nodes, plainNode{Start: int(n.StartByte()), End: int(n.EndByte()), Kind: n.Type(), Named: n.IsNamed()})
		count := int(n.ChildCount())
		if count == 0 || nodes[i].End-nodes[i].Start <= leaf {
			return i
		}
		kids := make([]int32, 0, count)
		for k := range count {
			kids = append(kids, add(n.Child(k)))
		}
		nodes[i].Children = kids
		return i
	}
	add(st.RootNode())
	return nodes
}

// TestParseMatchesPlainWalk: the tree Parse keeps (its root's children
// walked with a cursor, each subtree through a copy of the tree, kinds by
// symbol, children in one array) is the tree walked node by node, for every leaf size, with
// syntax errors and zero-width nodes too.
func TestParseMatchesPlainWalk(t *testing.T) {
	cases := map[string]string{
		"go":     goSource(40),
		"python": strings.Repeat("@dec\ndef f(x):\n    \"\"\"Doc.\"\"\"\n    if x:\n        return [i for i in range(x)]\n    return None\n\nclass C:\n    y = 1\n    def m(self): pass\n\n", 30),
		"ts":     strings.Repeat("export interface I { a: number }\nfunction f(x: number): string { return `v${x}` }\nclass K extends B { m() { return 1 } }\n", 30),
		"c":      strings.Repeat("struct s { int a; };\nint f(int x) { if (x) { return x; } return 0; }\n#define M 1\n", 30),
		"broken": "package p\nfunc f( {\n\tx := \nfunc g() {}\n" + goSource(3) + "}}}",
	}
	for name, src := range cases {
		lang := name
		if name == "broken" {
			lang = "go"
		}
		for _, leaf := range []int{0, 8, 64, 250, 1 << 20} {
			tree, err := Parse(context.Background(), lang, []byte(src), leaf)
			if err != nil {
				t.Fatal(err)
			}
			want := plainTree(t, lang, []byte(src), leaf)
			if got := plain(tree); !reflect.DeepEqual(got, want) {
				t.Errorf("%s, leaf %d: %d nodes, want %d (or they differ)", name, leaf, len(tree.Nodes), len(want))
			}
		}
	}
}

// TestParseLiveHeap bounds the Go heap Parse holds at its peak on Go
// source: the binding's value for every node it handed out was held to
// the end, and each node had a kind string and a children slice of its own
// (20.2 bytes a byte of this source, 11.0 with the values of one top-level
// node at a time, 6.2 with the kinds and children held by the tree).
func TestParseLiveHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap over 1 MB of source")
	}
	src := []byte(goSource(1500))
	var tree *Tree
	peak := memtest.PeakLive(func() {
		var err error
		tree, err = Parse(context.Background(), "go", src, 250)
		if err != nil {
			t.Error(err)
		}
	})
	perByte := float64(peak) / float64(len(src))
	t.Logf("%d bytes, %d nodes: peak live heap %.2f bytes a byte", len(src), len(tree.Nodes), perByte)
	if perByte > 9 {
		t.Errorf("Parse's peak live heap is %.2f bytes a byte of Go source, want at most 9", perByte)
	}
}

// TestCutLooksAtOverlappingChildren: Cut of a range in a node with many
// children (a long file's top-level declarations) looks at the children
// that overlap it, not all of them: it gathered every child into a slice
// (21 allocations for 5,000), for every range the engine cut there,
// which made code chunking quadratic in a file's declarations (30 MB of
// Go: 65 s of CPU, 80 % of it in Cut). The spans are those of a cut over
// all children.
func TestCutLooksAtOverlappingChildren(t *testing.T) {
	src := goSource(2500)
	tree, err := Parse(context.Background(), "go", []byte(src), 250)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tree.Children(0)); n < 5000 {
		t.Fatalf("the root has %d children, want 5,000 or more", n)
	}
	// A range over two declarations in the middle, and its cut.
	a := strings.Index(src, "// F1200 ")
	b := strings.Index(src, "// F1201 ")
	spans := tree.Cut(a, b, nil)
	if len(spans) < 2 || spans[0][0] != a || spans[len(spans)-1][1] > b {
		t.Fatalf("cut of [%d, %d): %v", a, b, spans)
	}
	for i := 1; i < len(spans); i++ {
		if spans[i][0] < spans[i-1][1] {
			t.Fatalf("spans overlap: %v", spans)
		}
	}
	allocs := testing.AllocsPerRun(20, func() { tree.Cut(a, b, nil) })
	if allocs > 6 {
		t.Errorf("Cut of two declarations among 5,000 allocates %.0f times, want at most 6", allocs)
	}
}
