package officedoc

import (
	"encoding/xml"
	"slices"
	"strconv"
	"strings"

	"github.com/gochunk/gochunk"
)

// maxDiagramDepth bounds the nesting of a SmartArt diagram's points read
// (a list item's indentation; the deeper are read at this depth).
const maxDiagramDepth = maxListLevel

// diagramElements appends the text of a SmartArt diagram (its data
// part, dgm:dataModel, which a slide's or a document's graphic frame
// names by r:dm) as list items, nested as the diagram's hierarchy nests
// its points (connections of type parOf, in their order), a point's
// paragraphs joined by spaces. Points no connection reaches follow in
// the order the part lists them. The drawing PowerPoint and Word cache of
// the diagram (its shapes) is not read: it repeats the same text.
func diagramElements(a *archive, part string, els *[]gochunk.Element) error {
	data, err := a.part(part)
	if err != nil {
		return err
	}
	type point struct {
		id, typ string
		text    []string
	}
	type link struct {
		src, dst string
		ord      int
	}
	var points []*point
	var links []link
	var cur *point
	var para strings.Builder
	inText := false
	err = walkXML(part, data, func(t xml.Token) error {
		switch e := t.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "pt":
				typ := attr(e, "type")
				if typ == "" {
					typ = "node"
				}
				cur = &point{id: attr(e, "modelId"), typ: typ}
				points = append(points, cur)
			case "cxn":
				if typ := attr(e, "type"); typ == "" || typ == "parOf" {
					ord, _ := strconv.Atoi(attr(e, "srcOrd"))
					links = append(links, link{attr(e, "srcId"), attr(e, "destId"), ord})
				}
			case "p":
				para.Reset()
			case "t":
				// dgm:t, the point's text body (white space between
				// its elements), or a:t, a run's text.
				inText = cur != nil
			}
		case xml.CharData:
			if inText {
				para.Write(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "t":
				inText = false
			case "p":
				if cur != nil {
					if s := oneLine(para.String()); s != "" {
						cur.text = append(cur.text, s)
					}
				}
			case "pt":
				cur = nil
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	byID := make(map[string]*point, len(points))
	for _, p := range points {
		byID[p.id] = p
	}
	slices.SortStableFunc(links, func(x, y link) int { return x.ord - y.ord })
	kids := map[string][]string{}
	hasParent := map[string]bool{}
	for _, l := range links {
		if byID[l.src] != nil && byID[l.dst] != nil && l.src != l.dst {
			kids[l.src] = append(kids[l.src], l.dst)
			hasParent[l.dst] = true
		}
	}
	// Depth first from the roots (the document point), then from what
	// they did not reach; iterative, as a diagram's chain of points may
	// be long.
	done := map[string]bool{}
	type visit struct {
		id    string
		depth int
	}
	var stack []visit
	walk := func(root string) error {
		stack = append(stack[:0], visit{root, 0})
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if done[v.id] {
				continue
			}
			done[v.id] = true
			p := byID[v.id]
			next := v.depth
			if p.typ == "node" {
				if len(p.text) > 0 {
					text := strings.Repeat("  ", min(v.depth, maxDiagramDepth)) + "- " + strings.Join(p.text, " ")
					if err := a.d.emit(els, gochunk.Element{Type: "list_item", Text: text}); err != nil {
						return err
					}
				}
				next++ // the document point is the root, not a level
			}
			ks := kids[v.id]
			for i := len(ks) - 1; i >= 0; i-- {
				if !done[ks[i]] {
					stack = append(stack, visit{ks[i], next})
				}
			}
		}
		return nil
	}
	for _, p := range points {
		if !hasParent[p.id] {
			if err := walk(p.id); err != nil {
				return err
			}
		}
	}
	for _, p := range points {
		if err := walk(p.id); err != nil {
			return err
		}
	}
	return nil
}
