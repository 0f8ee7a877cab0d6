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
	var add func(n *sitter.Node) int32
	add = func(n *sitter.Node) int32 {
		i := int32(len(t.Nodes))
		t.Nodes = append(t.Nodes, Node{Start: int(n.StartByte()), End: int(n.EndByte()), Kind: n.Type(), Named: n.IsNamed()})
		count := int(n.ChildCount())
		if count == 0 || t.Nodes[i].End-t.Nodes[i].Start <= leaf {
			return i
		}
		kids := make([]int32, 0, count)
		for k := range count {
			kids = append(kids, add(n.Child(k)))
		}
		t.Nodes[i].Children = kids
		return i
	}
	add(st.RootNode())
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
