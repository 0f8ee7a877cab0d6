// Package syntax parses source code into syntax trees with tree-sitter
// (the cgo build; see parse_cgo.go) and holds them as plain Go values, so
// chunkers can walk them without crossing into C: node spans, kinds, and
// the names of definitions (functions, classes, methods, types).
package syntax

import (
	"errors"
	"sort"
	"strings"
)

// ErrUnavailable is returned by Parse in a build without cgo, where the
// tree-sitter grammars are not compiled in.
var ErrUnavailable = errors.New("syntax-tree code chunking needs the cgo build of gochunk (go build with CGO_ENABLED=1 and a C compiler); this build splits code by lines and definition patterns")

// Node is a node of a syntax tree: 32 bytes, its kind and its children
// held by the tree (Tree.Kind, Tree.Children), where a string and a slice
// of its own took 40 more and an allocation.
type Node struct {
	Start, End   int // byte offsets
	kind         uint16
	Named        bool
	first, count int32 // its children: Tree.kids[first:first+count]
}

// Tree is a parsed document; Nodes[0] is the root.
type Tree struct {
	Language string
	Nodes    []Node
	// Defs are the definitions (functions, classes, methods, types), in
	// order of their start.
	Defs  []Definition
	text  string
	kinds []string // the kinds of nodes, by Node.kind
	kids  []int32  // the children of every node, indices into Nodes
}

// Kind returns the kind of node n (function_declaration, identifier, {).
func (t *Tree) Kind(n int) string { return t.kinds[t.Nodes[n].kind] }

// Children returns the indices of node n's children, in order (none for
// a node kept whole). The slice is the tree's: not to be changed.
func (t *Tree) Children(n int) []int32 {
	nd := &t.Nodes[n]
	return t.kids[nd.first : nd.first+nd.count : nd.first+nd.count]
}

// Covering returns the deepest node whose span holds [a, b).
func (t *Tree) Covering(a, b int) int {
	n := 0
	for {
		kids := t.Children(n)
		i := sort.Search(len(kids), func(i int) bool { return t.Nodes[kids[i]].End >= b })
		if i == len(kids) || t.Nodes[kids[i]].Start > a || t.Nodes[kids[i]].End < b {
			return n
		}
		n = int(kids[i])
	}
}

// keyword reports an anonymous node's text that is a word.
func keyword(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_') {
			return false
		}
	}
	return s != ""
}

// punctuation reports text made only of punctuation (; } ) ,).
func punctuation(s string) bool {
	return s != "" && strings.Trim(s, ";,)]}") == ""
}

// bodyLike reports the kinds that hold a sequence of statements or
// members.
func bodyLike(kind string) bool {
	return kind == "block" || kind == "compound_statement" || strings.HasSuffix(kind, "_body") ||
		kind == "declaration_list" || kind == "field_declaration_list" || kind == "statement_block"
}

// attached reports the kinds that belong to the node after them: comments
// and attributes (Rust's #[...], decorators outside a decorated node).
func attached(kind string) bool {
	return strings.Contains(kind, "comment") || kind == "attribute_item" || kind == "decorator" || kind == "annotation"
}

// Cut returns the spans that [a, b) falls into at the children of the
// deepest node holding it: each child (clipped to [a, b)), with the
// comments and attributes right above a child joined to it. It returns
// one span when no node there has children to cut at.
func (t *Tree) Cut(a, b int, dst [][2]int) [][2]int {
	n := t.Covering(a, b)
	// A body (a block of statements, a class's or struct's members) is cut
	// at its own children, so that the node's header (def f(x):, class C {)
	// can stay with the first of them.
	// Only the children that overlap [a, b) are looked at (children are
	// in order, so their ends are too): a range of a node with many (a
	// long file's top-level declarations) was cut over all of them, once
	// for every range the engine cut there.
	ch := t.Children(n)
	lo := sort.Search(len(ch), func(i int) bool { return t.Nodes[ch[i]].End > a })
	var kids []int32
	for _, k := range ch[lo:] {
		if t.Nodes[k].Start >= b {
			break
		}
		if c := t.Nodes[k]; bodyLike(t.kinds[c.kind]) && c.count > 0 {
			kids = append(kids, t.Children(int(k))...)
		} else {
			kids = append(kids, k)
		}
	}
	pending, lastStart := -1, -1
	for _, k := range kids {
		c := t.Nodes[k]
		if c.End <= a || c.Start >= b {
			continue
		}
		s, e := max(c.Start, a), min(c.End, b)
		if attached(t.kinds[c.kind]) || !c.Named && keyword(t.text[c.Start:c.End]) {
			// Comments, attributes and keywords (export, public, async) go
			// with the node after them.
			if pending < 0 {
				pending = s
			}
			continue
		}
		if !c.Named && len(dst) > 0 && pending < 0 && punctuation(t.text[c.Start:c.End]) {
			dst[len(dst)-1][1] = e // a ; or } stays with what it closes
			continue
		}
		if pending >= 0 {
			s, pending = pending, -1
		}
		lastStart = max(c.Start, a)
		dst = append(dst, [2]int{s, e})
	}
	if pending >= 0 { // comments at the end: a span of their own
		dst = append(dst, [2]int{pending, min(t.Nodes[n].End, b)})
	}
	if len(dst) == 0 {
		return append(dst, [2]int{a, b})
	}
	if len(dst) == 1 && dst[0] == [2]int{a, b} && lastStart > a {
		// Comments joined to the node after them make up the whole range:
		// cut that node, and keep them with its first part.
		inner := t.Cut(lastStart, b, nil)
		if len(inner) > 1 {
			inner[0][0] = a
			return append(dst[:0], inner...)
		}
	}
	return t.fill(a, b, dst)
}

// fill adds a span for any text between the spans that is not white
// space: some grammars leave text outside every child (a string's
// content between its quotes), and no text may be lost.
func (t *Tree) fill(a, b int, spans [][2]int) [][2]int {
	blank := func(x, y int) bool { return strings.TrimSpace(t.text[x:y]) == "" }
	out := spans[:0:0]
	at := a
	for _, s := range spans {
		if s[0] > at && !blank(at, s[0]) {
			out = append(out, [2]int{at, s[0]})
		}
		out = append(out, s)
		at = s[1]
	}
	if at < b && !blank(at, b) {
		out = append(out, [2]int{at, b})
	}
	return out
}

// ErrorShare returns the share of the text's bytes under ERROR nodes:
// near 0 for code of the tree's language, high for other text.
func (t *Tree) ErrorShare() float64 {
	if len(t.text) == 0 {
		return 0
	}
	bad := 0
	var walk func(n int)
	walk = func(n int) {
		nd := t.Nodes[n]
		if t.kinds[nd.kind] == "ERROR" {
			bad += nd.End - nd.Start
			return
		}
		for _, k := range t.Children(n) {
			walk(int(k))
		}
	}
	walk(0)
	return float64(bad) / float64(len(t.text))
}

// Definition is a definition node in a span: "function foo".
type Definition struct {
	Kind, Name string
	Start, End int
}

// String returns "kind name".
func (d Definition) String() string { return strings.TrimSpace(d.Kind + " " + d.Name) }

// Definitions returns the outermost definitions that start in [a, b), and
// the innermost definition that holds all of [a, b) (its enclosing
// function or class), if any.
func (t *Tree) Definitions(a, b int) (in []Definition, within *Definition) {
	for i := range t.Defs {
		d := t.Defs[i]
		switch {
		case d.Start >= b:
			return in, within
		case d.Start >= a:
			if len(in) == 0 || d.Start >= in[len(in)-1].End {
				in = append(in, d)
			}
		case d.End >= b:
			within = &t.Defs[i]
		}
	}
	return in, within
}

// Enclosing returns the definitions that hold all of [a, b), outermost
// first: a method's class, then the method.
func (t *Tree) Enclosing(a, b int) []Definition {
	var out []Definition
	for _, d := range t.Defs {
		if d.Start >= a {
			break
		}
		if d.End >= b {
			out = append(out, d)
		}
	}
	return out
}

// kindLabel turns a node kind into a word: function_definition → function,
// class_declaration → class, impl_item → impl.
func kindLabel(kind string) string {
	for _, suf := range []string{"_definition", "_declaration", "_item", "_specifier", "_spec", "_statement"} {
		if k, ok := strings.CutSuffix(kind, suf); ok {
			return strings.ReplaceAll(k, "_", " ")
		}
	}
	return strings.ReplaceAll(kind, "_", " ")
}

// definitionQueries find the definitions of each language and their
// names, as tree-sitter queries.
var definitionQueries = map[string]string{
	"python": `(function_definition name: (_) @name) @def (class_definition name: (_) @name) @def`,
	"go": `(function_declaration name: (_) @name) @def (method_declaration name: (_) @name) @def
		(type_spec name: (_) @name) @def`,
	"js": `(function_declaration name: (_) @name) @def (class_declaration name: (_) @name) @def
		(method_definition name: (_) @name) @def (generator_function_declaration name: (_) @name) @def`,
	"ts": `(function_declaration name: (_) @name) @def (class_declaration name: (_) @name) @def
		(method_definition name: (_) @name) @def (interface_declaration name: (_) @name) @def
		(type_alias_declaration name: (_) @name) @def (enum_declaration name: (_) @name) @def
		(abstract_class_declaration name: (_) @name) @def`,
	"java": `(class_declaration name: (_) @name) @def (interface_declaration name: (_) @name) @def
		(enum_declaration name: (_) @name) @def (record_declaration name: (_) @name) @def
		(method_declaration name: (_) @name) @def (constructor_declaration name: (_) @name) @def`,
	"rust": `(function_item name: (_) @name) @def (struct_item name: (_) @name) @def (enum_item name: (_) @name) @def
		(trait_item name: (_) @name) @def (impl_item type: (_) @name) @def (mod_item name: (_) @name) @def
		(macro_definition name: (_) @name) @def`,
	"c": `(function_definition declarator: (function_declarator declarator: (_) @name)) @def
		(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name))) @def
		(struct_specifier name: (_) @name body: (_)) @def (enum_specifier name: (_) @name body: (_)) @def
		(union_specifier name: (_) @name body: (_)) @def`,
	"cpp": `(function_definition declarator: (function_declarator declarator: (_) @name)) @def
		(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name))) @def
		(function_definition declarator: (reference_declarator (function_declarator declarator: (_) @name))) @def
		(class_specifier name: (_) @name body: (_)) @def (struct_specifier name: (_) @name body: (_)) @def
		(enum_specifier name: (_) @name body: (_)) @def (namespace_definition name: (_) @name) @def`,
}

// Languages returns the languages Parse knows (none in a build without
// cgo).
func Languages() []string {
	if !available {
		return nil
	}
	out := make([]string, 0, len(definitionQueries))
	for l := range definitionQueries {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}
