// Package feeddoc reads web feeds (RSS 2.0 and 0.9x, RSS 1.0 (RDF) and
// Atom 1.0) as layout elements, like the other readers of gochunk: the
// feed's title as the document's title ("# Title"), its description and
// link, then each item (an RSS item, an Atom entry) as a heading of its
// title ("## Title"), a paragraph of its date, author and link
// ("Published: …", "Author: …", "Link: …", as the feed writes them), and
// its content: RSS's description and content:encoded, Atom's summary and
// content, read as HTML is (package htmldoc: paragraphs, lists, tables,
// code), headings in it placed under the item's; an item with neither
// has a podcast's iTunes summary or a video's Media RSS description
// (YouTube's feeds) read as plain text. Atom's text constructs
// are read by their type (text, html, xhtml); content of another type
// (base64 data, content given by a src link) is left out. An item's
// description that its full content holds (a summary of it) is not read
// twice. The rest of a feed (images, categories, enclosures, generator,
// update periods) is not the feed's text and is left out.
//
// Reading is bounded: the feed is read item by item (the memory an item
// takes is bounded by MaxItemElements), elements nest at most MaxDepth
// deep, and the text is counted against htmldoc's Limits, as the other
// readers' is.
package feeddoc

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"encoding/xml"

	"golang.org/x/net/html/charset"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/htmldoc"
)

// ErrFormat reports data that is not a feed, or XML that does not parse.
var ErrFormat = errors.New("not a readable RSS or Atom feed")

// MaxDepth is the deepest nesting of XML elements read; a feed nested
// deeper is refused (a feed nests a few levels, its XHTML content a few
// dozen at most).
const MaxDepth = 512

// MaxItemElements bounds the XML elements of one item (or of the feed's
// own title, description and link): an item of more is refused, so the
// memory one item's tree takes stays bounded.
const MaxItemElements = 1 << 18

const (
	nsAtom    = "http://www.w3.org/2005/Atom"
	nsAtom03  = "http://purl.org/atom/ns#"
	nsRDF     = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsRSS1    = "http://purl.org/rss/1.0/"
	nsRSS090  = "http://my.netscape.com/rdf/simple/0.9/"
	nsDC      = "http://purl.org/dc/elements/1.1/"
	nsContent = "http://purl.org/rss/1.0/modules/content/"
	nsXHTML   = "http://www.w3.org/1999/xhtml"
	nsMedia   = "http://search.yahoo.com/mrss/"
	nsITunes  = "http://www.itunes.com/dtds/podcast-1.0.dtd"
)

// kind is a feed's dialect, by its root element.
type kind uint8

const (
	notFeed kind = iota
	rss2         // <rss>: RSS 0.9x and 2.0, elements in no namespace
	rss1         // <rdf:RDF>: RSS 1.0 and 0.90, items beside the channel
	atom         // <feed>: Atom 1.0 (and 0.3)
)

// autoClose is HTML's elements of no end tag (<br>, <img>), less <link>:
// an RSS <link> holds its address, and closing it at once would lose it.
var autoClose = func() []string {
	var names []string
	for _, n := range xml.HTMLAutoClose {
		if n != "link" {
			names = append(names, n)
		}
	}
	return names
}()

// newDecoder returns a lenient decoder, as feed readers are (feedparser,
// gofeed): a bare "&" (a title's "A & B", a link's "?a=1&b=2"), an
// unknown entity, an attribute of no quotes and an HTML <br> left open
// are read as a browser reads them, not refused. A document cut short
// still is.
func newDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.Strict = false
	d.AutoClose = autoClose
	d.Entity = xml.HTMLEntity // feeds use HTML's named entities (&nbsp;) undeclared
	d.CharsetReader = charset.NewReaderLabel
	return d
}

// rootKind returns the dialect a root element names, and its own
// namespace (the one its title, link and items are in).
func rootKind(root xml.StartElement) (kind, string) {
	switch {
	case root.Name.Local == "rss":
		return rss2, root.Name.Space
	case root.Name.Local == "feed" && (root.Name.Space == nsAtom || root.Name.Space == nsAtom03):
		return atom, root.Name.Space
	case root.Name.Local == "RDF" && root.Name.Space == nsRDF:
		for _, a := range root.Attr {
			if (a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns") && (a.Value == nsRSS1 || a.Value == nsRSS090) {
				return rss1, a.Value
			}
		}
	}
	return notFeed, ""
}

// Is reports whether data is a feed by its content: XML whose root
// element (after the declaration, comments, processing instructions and
// a doctype, in the first 64 KiB) is <rss>, Atom's <feed>, or an
// <rdf:RDF> in RSS 1.0's namespace. An XML document of another root is
// not one.
func Is(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '<' {
		return false
	}
	d := newDecoder(bytes.NewReader(data[:min(len(data), 64<<10)]))
	for range 256 {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if se, ok := tok.(xml.StartElement); ok {
			k, _ := rootKind(se)
			return k != notFeed
		}
	}
	return false
}

// Elements reads data as a feed within the default limits.
func Elements(ctx context.Context, data []byte) ([]gochunk.Element, error) {
	return ElementsWithin(ctx, data, htmldoc.NewBudget(htmldoc.DefaultLimits(), int64(len(data))))
}

// node is an XML element of an item: its name, attributes, and children
// in order (a text child has no name).
type node struct {
	name xml.Name
	attr []xml.Attr
	kids []*node
	text string // a text child's
}

// ElementsWithin reads data as a feed, counting its text against b. It
// returns an error wrapping ErrFormat for data that is not a feed or XML
// that does not parse (saying where, or that it is cut short), one
// wrapping htmldoc.ErrTooLarge when b's bounds or MaxItemElements are
// passed, and ctx's when it is done.
func ElementsWithin(ctx context.Context, data []byte, b *htmldoc.Budget) ([]gochunk.Element, error) {
	r := &reader{ctx: ctx, budget: b, d: newDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))))}
	if err := r.run(); err != nil {
		return nil, err
	}
	return r.els, nil
}

type reader struct {
	ctx    context.Context
	budget *htmldoc.Budget
	d      *xml.Decoder
	kind   kind
	ns     string // the feed's own namespace
	els    []gochunk.Element
	// The feed's own title, description and link, put before its items.
	title, desc, link *node
}

func (r *reader) syntax(err error) error {
	var se *xml.SyntaxError
	switch {
	case errors.As(err, &se) && (se.Msg == "unexpected EOF" || strings.HasPrefix(se.Msg, "unexpected EOF")):
		return fmt.Errorf("%w: the XML is cut short (it ends at line %d inside an element): check that the file was saved or downloaded whole", ErrFormat, se.Line)
	case errors.As(err, &se):
		return fmt.Errorf("%w: the XML does not parse at line %d (%s): find the fault with xmllint --noout FILE, or fetch the feed again", ErrFormat, se.Line, se.Msg)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: the XML is cut short (it ends inside an element): check that the file was saved or downloaded whole", ErrFormat)
	}
	return fmt.Errorf("%w: %v", ErrFormat, err)
}

// next returns the next start or end element, or an error; text,
// comments and the like between them are skipped.
func (r *reader) next() (xml.Token, error) {
	for n := 0; ; n++ {
		if n%1024 == 1023 {
			if err := r.ctx.Err(); err != nil {
				return nil, err
			}
		}
		tok, err := r.d.Token()
		if err != nil {
			return nil, r.syntax(err)
		}
		switch tok.(type) {
		case xml.StartElement, xml.EndElement:
			return tok, nil
		}
	}
}

func (r *reader) run() error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	var root xml.StartElement
	for {
		tok, err := r.d.Token()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: it holds no XML element", ErrFormat)
		}
		if err != nil {
			return r.syntax(err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			root = se
			break
		}
	}
	if r.kind, r.ns = rootKind(root); r.kind == notFeed {
		return fmt.Errorf("%w: its root element is <%s>, where a feed's is <rss>, Atom's <feed> or RSS 1.0's <rdf:RDF>", ErrFormat, root.Name.Local)
	}
	if err := r.children(1, r.top); err != nil {
		return err
	}
	// The document ends with the root: what follows it is not read, but
	// must parse.
	for {
		if _, err := r.d.Token(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return r.syntax(err)
		}
	}
	return r.header()
}

// children calls fn with each child element of the element just opened
// (at depth), until its end; fn reads or skips the child.
func (r *reader) children(depth int, fn func(xml.StartElement, int) error) error {
	if depth > MaxDepth {
		return fmt.Errorf("%w: elements nested more than %d deep", ErrFormat, MaxDepth)
	}
	for {
		tok, err := r.next()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return nil
		case xml.StartElement:
			if err := fn(t, depth+1); err != nil {
				return err
			}
		}
	}
}

// skip reads past the element just opened (at depth), to its end; its
// elements, though not kept, nest at most MaxDepth deep.
func (r *reader) skip(depth int) error {
	for open := 1; open > 0; {
		tok, err := r.next()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth+open > MaxDepth {
				return fmt.Errorf("%w: elements nested more than %d deep", ErrFormat, MaxDepth)
			}
			open++
		case xml.EndElement:
			open--
		}
	}
	return nil
}

func (r *reader) own(n xml.Name, local string) bool {
	return n.Local == local && n.Space == r.ns
}

// top reads a child of the root.
func (r *reader) top(se xml.StartElement, depth int) error {
	switch {
	case r.kind == rss2 && r.own(se.Name, "channel"), r.kind == rss1 && r.own(se.Name, "channel"):
		return r.children(depth, r.channel)
	case r.kind == rss1 && r.own(se.Name, "item"), r.kind == rss2 && r.own(se.Name, "item"):
		return r.item(se, depth)
	case r.kind == atom && r.own(se.Name, "entry"):
		return r.item(se, depth)
	case r.kind == atom:
		return r.channel(se, depth)
	}
	return r.skip(depth)
}

// channel reads a child of the channel (of Atom's feed): its title,
// description and link are kept, its items read, the rest skipped.
func (r *reader) channel(se xml.StartElement, depth int) error {
	switch {
	case r.own(se.Name, "item") && r.kind != atom:
		return r.item(se, depth)
	case r.own(se.Name, "title") && r.title == nil:
		n, err := r.tree(se, depth)
		r.title = n
		return err
	case (r.own(se.Name, "description") || r.own(se.Name, "subtitle") || r.own(se.Name, "tagline")) && r.desc == nil:
		n, err := r.tree(se, depth)
		r.desc = n
		return err
	case r.own(se.Name, "link") && r.link == nil:
		n, err := r.tree(se, depth)
		if r.kind != atom || isAlternate(n) {
			r.link = n
		}
		return err
	}
	return r.skip(depth)
}

// tree reads the element just opened into a tree, to its end.
func (r *reader) tree(se xml.StartElement, depth int) (*node, error) {
	root := &node{name: se.Name, attr: se.Attr}
	stack := []*node{root}
	count := 1
	// The text between two elements comes in pieces (a CharData token for
	// each CDATA section, and for each run between comments): they are
	// gathered here and made one text child when an element starts or
	// ends, so the cost stays linear in the pieces.
	var text []byte
	flush := func(top *node) {
		if len(text) > 0 {
			top.kids = append(top.kids, &node{text: string(text)})
			text = text[:0]
		}
	}
	for len(stack) > 0 {
		tok, err := r.d.Token()
		if err != nil {
			return nil, r.syntax(err)
		}
		top := stack[len(stack)-1]
		switch tok.(type) {
		case xml.StartElement, xml.EndElement:
			flush(top)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if count++; count > MaxItemElements {
				return nil, fmt.Errorf("%w: an item of more than %d XML elements (feeddoc.MaxItemElements)", htmldoc.ErrTooLarge, MaxItemElements)
			}
			if depth+len(stack) > MaxDepth {
				return nil, fmt.Errorf("%w: elements nested more than %d deep", ErrFormat, MaxDepth)
			}
			if count%1024 == 0 {
				if err := r.ctx.Err(); err != nil {
					return nil, err
				}
			}
			n := &node{name: t.Name, attr: t.Attr}
			top.kids = append(top.kids, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			text = append(text, t...)
		}
	}
	return root, nil
}

// chars returns the text an element holds, its children's included.
func (n *node) chars() string {
	if n == nil {
		return ""
	}
	if n.name.Local == "" {
		return n.text
	}
	var sb strings.Builder
	var walk func(*node)
	walk = func(n *node) {
		for _, k := range n.kids {
			if k.name.Local == "" {
				sb.WriteString(k.text)
			} else {
				walk(k)
			}
		}
	}
	walk(n)
	return sb.String()
}

func (n *node) attrOf(local string) string {
	for _, a := range n.attr {
		if a.Name.Local == local && (a.Name.Space == "" || a.Name.Space == n.name.Space) {
			return a.Value
		}
	}
	return ""
}

func (n *node) child(space, local string) *node {
	for _, k := range n.kids {
		if k.name.Local == local && k.name.Space == space {
			return k
		}
	}
	return nil
}

// isAlternate reports whether an Atom link is the entry's own page (rel
// alternate, or no rel).
func isAlternate(n *node) bool {
	rel := n.attrOf("rel")
	return rel == "" || rel == "alternate"
}

// xhtml writes an element's children as markup, for an Atom xhtml text
// construct (read as HTML).
func xhtml(n *node, sb *strings.Builder) {
	for _, k := range n.kids {
		if k.name.Local == "" {
			xml.EscapeText(sb, []byte(k.text))
			continue
		}
		sb.WriteString("<" + k.name.Local)
		for _, a := range k.attr {
			if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
				continue
			}
			sb.WriteString(" " + a.Name.Local + `="`)
			xml.EscapeText(sb, []byte(a.Value))
			sb.WriteString(`"`)
		}
		sb.WriteString(">")
		xhtml(k, sb)
		sb.WriteString("</" + k.name.Local + ">")
	}
}

// markup returns the HTML a content element holds, and whether it is
// HTML at all: RSS's description and content are HTML (escaped, or in
// CDATA); Atom's are by their type.
func (r *reader) markup(n *node) (string, bool) {
	if r.kind != atom && n.name.Space != nsAtom {
		return n.chars(), true
	}
	text := n.chars()
	switch strings.ToLower(n.attrOf("mode")) { // Atom 0.3
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(text), ""))
		if err != nil || !utf8.Valid(b) {
			return "", false
		}
		text = string(b)
	case "xml":
		var sb strings.Builder
		xhtml(n, &sb)
		return sb.String(), true
	}
	switch typ := strings.ToLower(n.attrOf("type")); {
	case typ == "" || typ == "text" || typ == "text/plain":
		return html.EscapeString(text), true
	case typ == "html" || typ == "text/html":
		return text, true
	case typ == "xhtml" || typ == "application/xhtml+xml":
		var sb strings.Builder
		xhtml(n, &sb)
		return sb.String(), true
	case strings.HasPrefix(typ, "text/"):
		return html.EscapeString(text), true
	}
	return "", false // base64 data of another type
}

// line returns a title's text on one line: an Atom title by its type, an
// RSS title with its character references decoded (feeds escape them
// twice: "&amp;#8217;").
func (r *reader) line(n *node) (string, error) {
	if n == nil {
		return "", nil
	}
	t := n.chars()
	if r.kind == atom {
		h, _ := r.markup(n)
		els, err := htmldoc.ElementsWithin(strings.NewReader(h), htmldoc.NewBudget(r.budget.Limits(), int64(len(h))))
		if err != nil {
			return "", err
		}
		var parts []string
		for _, e := range els {
			t := e.Text
			switch e.Type {
			case "title", "heading":
				t = strings.TrimLeft(t, "#")
			case "list_item":
				if _, rest, ok := strings.Cut(strings.TrimSpace(t), " "); ok {
					t = rest // less its marker
				}
			}
			parts = append(parts, t)
		}
		t = strings.Join(parts, " ")
	} else if strings.Contains(t, "&") {
		t = html.UnescapeString(t)
	}
	return strings.Join(strings.Fields(t), " "), nil
}

// content returns the elements of a description or content, its headings
// placed below level.
func (r *reader) content(n *node, level int) ([]gochunk.Element, error) {
	els, _, err := r.contentIn(n, level, r.budget)
	return els, err
}

// contentIn is content counting the text against b; a nil b is a budget
// of its own (returned), of the reader's limits for the markup's size,
// for text that may be dropped (a description its content holds): the
// caller counts what it keeps.
func (r *reader) contentIn(n *node, level int, b *htmldoc.Budget) ([]gochunk.Element, *htmldoc.Budget, error) {
	if n == nil {
		return nil, b, nil
	}
	h, ok := r.markup(n)
	if !ok || strings.TrimSpace(h) == "" {
		return nil, b, nil
	}
	if b == nil {
		b = htmldoc.NewBudget(r.budget.Limits(), int64(len(h)))
	}
	if e, ok := plainParagraph(h); ok {
		if err := b.Text(int64(len(e.Text)) + 2); err != nil {
			return nil, b, fmt.Errorf("html: %w", err)
		}
		return []gochunk.Element{e}, b, nil
	}
	els, err := htmldoc.ElementsWithin(strings.NewReader(h), b)
	if err != nil {
		return nil, b, err
	}
	// The content's top headings go one level below level, the others
	// keep their distance from them.
	top := 7
	for _, e := range els {
		if h := hashes(e); h > 0 {
			top = min(top, h)
		}
	}
	shift := max(0, level+1-top)
	for i, e := range els {
		if h := hashes(e); h > 0 && shift > 0 {
			l := min(h+shift, 6)
			els[i].Type, els[i].Level = "heading", l
			els[i].Text = strings.Repeat("#", l) + e.Text[h:]
		}
	}
	return els, b, nil
}

// plainParagraph returns the one paragraph HTML of no markup (no tag,
// no character reference) is read as, white space run together as
// package htmldoc runs it (a no-break space kept inside), without an
// HTML parse: most feeds' descriptions are such text, and a parse of
// each took most of a large feed's time and memory. It reports false for
// text that needs the parse (markup, a NUL, bytes that are not UTF-8, a
// byte order mark).
func plainParagraph(h string) (gochunk.Element, bool) {
	if strings.ContainsAny(h, "<&\x00\uFEFF") || !utf8.ValidString(h) {
		return gochunk.Element{}, false
	}
	var sb strings.Builder
	sb.Grow(len(h))
	space := false
	for _, c := range h {
		if unicode.IsSpace(c) && c != '\u00a0' {
			space = sb.Len() > 0
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteRune(c)
	}
	t := strings.TrimSpace(sb.String())
	return gochunk.Element{Type: "paragraph", Text: t}, t != ""
}

// plain returns the elements of a plain-text description: its
// paragraphs (parted by blank lines), their lines kept.
func (r *reader) plain(n *node) ([]gochunk.Element, error) {
	if n == nil {
		return nil, nil
	}
	var sb strings.Builder
	for _, p := range strings.Split(strings.ReplaceAll(n.chars(), "\r\n", "\n"), "\n\n") {
		if strings.TrimSpace(p) != "" {
			sb.WriteString("<p>" + strings.ReplaceAll(html.EscapeString(strings.TrimSpace(p)), "\n", "<br>") + "</p>")
		}
	}
	if sb.Len() == 0 {
		return nil, nil
	}
	return htmldoc.ElementsWithin(strings.NewReader(sb.String()), r.budget)
}

// hashes returns a heading's level as its text writes it ("## Title": 2),
// 0 for other elements.
func hashes(e gochunk.Element) int {
	if e.Type != "title" && e.Type != "heading" {
		return 0
	}
	return len(e.Text) - len(strings.TrimLeft(e.Text, "#"))
}

func (r *reader) add(e gochunk.Element) error {
	if strings.TrimSpace(e.Text) == "" {
		return nil
	}
	if err := r.budget.Text(int64(len(e.Text)) + 2); err != nil {
		return err
	}
	r.els = append(r.els, e)
	return nil
}

// header puts the feed's title, description and link before its items.
func (r *reader) header() error {
	items := r.els
	r.els = nil
	title, err := r.line(r.title)
	if err != nil {
		return err
	}
	if title != "" {
		if err := r.add(gochunk.Element{Type: "title", Text: "# " + title, Level: 1}); err != nil {
			return err
		}
	}
	desc, err := r.content(r.desc, 1)
	if err != nil {
		return err
	}
	r.els = append(r.els, desc...)
	if link := r.linkOf(r.link); link != "" {
		if err := r.add(gochunk.Element{Type: "paragraph", Text: "Link: " + link}); err != nil {
			return err
		}
	}
	r.els = append(r.els, items...)
	return nil
}

func (r *reader) linkOf(n *node) string {
	if n == nil {
		return ""
	}
	if r.kind == atom || n.name.Space == nsAtom {
		return strings.TrimSpace(n.attrOf("href"))
	}
	return strings.TrimSpace(n.chars())
}

// item reads an RSS item or an Atom entry.
func (r *reader) item(se xml.StartElement, depth int) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	n, err := r.tree(se, depth)
	if err != nil {
		return err
	}
	var title, desc, content, date, author, link *node
	for _, k := range n.kids {
		switch {
		case r.own(k.name, "title") && title == nil:
			title = k
		case (r.own(k.name, "description") || r.own(k.name, "summary")) && desc == nil:
			desc = k
		case (k.name.Space == nsContent && k.name.Local == "encoded" || r.kind == atom && r.own(k.name, "content")) && content == nil:
			content = k
		case r.own(k.name, "pubDate") || r.own(k.name, "published") || r.own(k.name, "issued"):
			date = k
		case (r.own(k.name, "updated") || r.own(k.name, "modified") || k.name.Space == nsDC && k.name.Local == "date") && date == nil:
			date = k
		case (r.own(k.name, "author") || k.name.Space == nsDC && k.name.Local == "creator") && author == nil:
			author = k
		case r.own(k.name, "link") && link == nil && (r.kind != atom || isAlternate(k)):
			link = k
		case r.own(k.name, "guid") && link == nil && k.attrOf("isPermaLink") != "false" && strings.HasPrefix(strings.TrimSpace(k.chars()), "http"):
			link = k
		}
	}
	head, err := r.line(title)
	if err != nil {
		return err
	}
	if head != "" {
		if err := r.add(gochunk.Element{Type: "heading", Text: "## " + head, Level: 2}); err != nil {
			return err
		}
	}
	var meta []string
	if d := strings.Join(strings.Fields(date.chars()), " "); d != "" {
		meta = append(meta, "Published: "+d)
	}
	if author != nil {
		a := author.chars()
		if nm := author.child(r.ns, "name"); nm != nil {
			a = nm.chars() // Atom's person: its name, not its e-mail and page
		}
		if a = strings.Join(strings.Fields(a), " "); a != "" {
			meta = append(meta, "Author: "+a)
		}
	}
	if l := r.linkOf(link); l != "" {
		meta = append(meta, "Link: "+l)
	}
	if len(meta) > 0 {
		if err := r.add(gochunk.Element{Type: "paragraph", Text: strings.Join(meta, "\n")}); err != nil {
			return err
		}
	}
	full, err := r.content(content, 2)
	if err != nil {
		return err
	}
	if desc == nil && content == nil {
		// A podcast's or a video's: iTunes' summary, Media RSS's
		// description (YouTube's feeds), both plain text.
		plain := n.child(nsITunes, "summary")
		if plain == nil {
			plain = n.child(nsMedia, "description")
		}
		if g := n.child(nsMedia, "group"); plain == nil && g != nil {
			plain = g.child(nsMedia, "description")
		}
		if full, err = r.plain(plain); err != nil {
			return err
		}
	}
	// The description is read against a budget of its own and counted
	// only when kept: a summary the content holds (WordPress's) is not
	// counted twice.
	summary, own, err := r.contentIn(desc, 2, nil)
	if err != nil {
		return err
	}
	if len(full) > 0 && holds(full, summary) {
		summary = nil
	} else if own != nil {
		text, cells := own.Used()
		if err := r.budget.Text(text); err != nil {
			return fmt.Errorf("html: %w", err)
		}
		if err := r.budget.Cells(cells); err != nil {
			return fmt.Errorf("html: %w", err)
		}
	}
	r.els = append(r.els, summary...)
	r.els = append(r.els, full...)
	return nil
}

// holds reports whether the words of summary (an item's description, less
// a closing ellipsis) are all, in order, in full's (its content).
func holds(full, summary []gochunk.Element) bool {
	words := func(els []gochunk.Element) string {
		var parts []string
		for _, e := range els {
			parts = append(parts, strings.Fields(e.Text)...)
		}
		return strings.Join(parts, " ")
	}
	s := words(summary)
	for _, tail := range []string{"[…]", "[...]", "…", "...", "&hellip;"} {
		s = strings.TrimSpace(strings.TrimSuffix(s, tail))
	}
	return s == "" || strings.Contains(words(full), s)
}
