//go:build cgo

package syntax

import (
	"context"
	"fmt"
	"slices"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

const available = true

var grammars = map[string]func() *sitter.Language{
	"python": python.GetLanguage, "go": golang.GetLanguage, "js": javascript.GetLanguage,
	"ts": typescript.GetLanguage, "tsx": tsx.GetLanguage, "java": java.GetLanguage,
	"rust": rust.GetLanguage, "c": c.GetLanguage, "cpp": cpp.GetLanguage,
}

// Parse parses src as lang (python, go, js, ts, tsx, java, rust, c, cpp).
// Nodes of at most leaf bytes are kept without their children (a chunker
// never needs to cut inside what fits its limit, as no unit counts more
// tokens than bytes); 0 keeps every node.
func Parse(ctx context.Context, lang string, src []byte, leaf int) (*Tree, error) {
	g, ok := grammars[lang]
	if !ok {
		return nil, fmt.Errorf("no tree-sitter grammar for %q", lang)
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(g())
	st, err := p.ParseCtx(ctx, nil, src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", lang, err)
	}
	defer st.Close()
	defs := lang
	if lang == "tsx" {
		defs = "ts"
	}
	t := &Tree{Language: lang, text: string(src)}
	// A node's kind is its symbol's name: one string a symbol, not an
	// allocation a node.
	kinds := map[sitter.Symbol]uint16{}
	node := func(n *sitter.Node) Node {
		sym := n.Symbol()
		k, ok := kinds[sym]
		if !ok {
			k = uint16(len(t.kinds))
			kinds[sym] = k
			t.kinds = append(t.kinds, n.Type())
		}
		return Node{Start: int(n.StartByte()), End: int(n.EndByte()), kind: k, Named: n.IsNamed()}
	}
	// children reserves the places of count children of node i in t.kids.
	children := func(i int32, count int) int32 {
		first := int32(len(t.kids))
		t.kids = append(t.kids, make([]int32, count)...)
		t.Nodes[i].first, t.Nodes[i].count = first, int32(count)
		return first
	}
	var add func(n *sitter.Node) int32
	add = func(n *sitter.Node) int32 {
		i := int32(len(t.Nodes))
		t.Nodes = append(t.Nodes, node(n))
		count := int(n.ChildCount())
		if count == 0 || t.Nodes[i].End-t.Nodes[i].Start <= leaf {
			return i
		}
		first := children(i, count)
		for k := range count {
			c := add(n.Child(k)) // t.kids may move while the child is added
			t.kids[int(first)+k] = c
		}
		return i
	}
	// The binding keeps a Go value for every node it hands out until its
	// tree is dropped (about 100 bytes a node, more than the node's copy
	// here), and finds a node's k-th child from its first. So the root's
	// children are walked with a cursor, and each one's subtree through a
	// copy of the tree (which shares its nodes) dropped after it: the
	// values handed out are those of one top-level node at a time.
	root := st.RootNode()
	top := func(n *sitter.Node) int32 {
		if n.ChildCount() == 0 || int(n.EndByte()-n.StartByte()) <= leaf {
			return add(n)
		}
		cp := st.Copy()
		defer cp.Close()
		c := sitter.NewTreeCursor(cp.RootNode())
		defer c.Close()
		if c.GoToFirstChildForByte(n.StartByte()) >= 0 {
			if m := c.CurrentNode(); m.StartByte() == n.StartByte() && m.EndByte() == n.EndByte() && m.Symbol() == n.Symbol() {
				return add(m)
			}
		}
		return add(n)
	}
	t.Nodes = append(t.Nodes, node(root))
	if count := int(root.ChildCount()); count > 0 && t.Nodes[0].End-t.Nodes[0].Start > leaf {
		first := children(0, count)
		c := sitter.NewTreeCursor(root)
		k := 0
		for ok := c.GoToFirstChild(); ok && k < count; ok = c.GoToNextSibling() {
			i := top(c.CurrentNode())
			t.kids[int(first)+k] = i
			k++
		}
		c.Close()
		if k != count {
			return nil, fmt.Errorf("parse %s: the root has %d children, its cursor saw %d", lang, count, k)
		}
	}
	if err := t.definitions(defs, g(), st.RootNode(), src); err != nil {
		return nil, err
	}
	return t, nil
}

// definitions runs the language's definition query over the whole tree
// (in C, however deep the definitions lie under the kept nodes).
func (t *Tree) definitions(lang string, g *sitter.Language, root *sitter.Node, src []byte) error {
	q, err := sitter.NewQuery([]byte(definitionQueries[lang]), g)
	if err != nil {
		return fmt.Errorf("definition query of %s: %w", lang, err)
	}
	defer q.Close()
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.Exec(q, root)
	for {
		m, ok := qc.NextMatch()
		if !ok {
			break
		}
		var d Definition
		for _, c := range m.Captures {
			switch q.CaptureNameForId(c.Index) {
			case "def":
				d.Kind, d.Start, d.End = kindLabel(c.Node.Type()), int(c.Node.StartByte()), int(c.Node.EndByte())
			case "name":
				d.Name = c.Node.Content(src)
			}
		}
		t.Defs = append(t.Defs, d)
	}
	slices.SortStableFunc(t.Defs, func(a, b Definition) int { return a.Start - b.Start })
	return nil
}
