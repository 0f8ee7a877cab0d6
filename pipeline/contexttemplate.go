package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/budget"
)

// Bounds of a context template (ContextConfig.Template). Go's templates
// have no bound of their own on time, output or memory, and a template
// comes from a request: every loop iteration and template call is a
// step, counted, and checked against the deadline; what the template
// writes and what its functions make are counted in bytes.
const (
	// MaxContextTemplateBytes bounds a template's source: a context
	// template is a few lines.
	MaxContextTemplateBytes = 16 << 10
	// MaxContextTemplateSteps bounds the loop iterations and template
	// calls of the template's run on one chunk.
	MaxContextTemplateSteps = 100_000
	// MaxContextBytes bounds what the template writes for one chunk
	// besides the chunk's text: more than any embedder's room (8,192
	// tokens, the largest, are about 32 KiB of text), where the context
	// is trimmed to fit anyway. The text its functions (printf, print,
	// html, ...) make for one chunk is bounded to four times the output.
	MaxContextBytes = 64 << 10
)

// stepFunc is the function every loop body and template starts with: it
// counts a step and checks the deadline.
const stepFunc = "_gochunkStep"

// contextTemplate is a parsed context template whose loops and templates
// count their steps (see start).
type contextTemplate struct {
	t *template.Template
}

// templateBound reports a template run that passed one of its bounds, or
// its deadline.
type templateBound struct{ err error }

func (e *templateBound) Error() string { return e.err.Error() }
func (e *templateBound) Unwrap() error { return e.err }

// parseContextTemplate parses and checks a context template: its size, a
// use of .Text, its syntax, no template calling itself and no loop over a
// number above MaxContextTemplateSteps; then runs it once on empty fields,
// within its bounds, so that a template that cannot run (a field that
// does not exist) is refused before any document.
func parseContextTemplate(src string) (*contextTemplate, error) {
	if len(src) > MaxContextTemplateBytes {
		return nil, fmt.Errorf("%w: context.template: %s, the most is %s; a context template is a few lines around {{.Text}}",
			gochunk.ErrConfig, budget.Format(int64(len(src))), budget.Format(MaxContextTemplateBytes))
	}
	if !strings.Contains(src, ".Text") {
		return nil, configError("context.template", src, "the template must use {{.Text}}, the chunk's text")
	}
	// The functions are placeholders here: each run has its own (start).
	t, err := template.New("context").Option("missingkey=zero").Funcs((&templateRun{}).funcs()).Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%w: context.template: %w", gochunk.ErrConfig, err)
	}
	if err := checkTemplate(t); err != nil {
		return nil, fmt.Errorf("%w: context.template: %w", gochunk.ErrConfig, err)
	}
	step, err := template.New("step").Funcs(template.FuncMap{stepFunc: func() string { return "" }}).Parse("{{" + stepFunc + "}}")
	if err != nil {
		return nil, err // not reached: a constant template
	}
	guard := step.Tree.Root.Nodes[0]
	for _, tt := range t.Templates() {
		if tt.Tree != nil && tt.Tree.Root != nil {
			counted(tt.Tree.Root, guard)
		}
	}
	ct := &contextTemplate{t: t}
	run, err := ct.start(context.Background())
	if err != nil {
		return nil, err
	}
	if _, err := run.execute(ContextFields{}); err != nil {
		return nil, fmt.Errorf("%w: %w", gochunk.ErrConfig, err)
	}
	return ct, nil
}

// checkTemplate refuses what a context template has no use for and could
// only make it run without end: a template that calls itself (directly
// or through others), and a loop over a number above
// MaxContextTemplateSteps.
func checkTemplate(t *template.Template) error {
	calls := map[string][]string{}
	var walkErr error
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil {
			continue
		}
		name := tt.Name()
		walkNodes(tt.Tree.Root, func(n parse.Node) {
			switch n := n.(type) {
			case *parse.TemplateNode:
				calls[name] = append(calls[name], n.Name)
			case *parse.RangeNode:
				if n.Pipe != nil && len(n.Pipe.Cmds) == 1 && len(n.Pipe.Cmds[0].Args) == 1 {
					if num, ok := n.Pipe.Cmds[0].Args[0].(*parse.NumberNode); ok && num.IsInt && num.Int64 > MaxContextTemplateSteps && walkErr == nil {
						walkErr = fmt.Errorf("{{range %d}} loops more than %d times, the most a context template runs; loop over the chunk's fields", num.Int64, MaxContextTemplateSteps)
					}
				}
			}
		})
	}
	if walkErr != nil {
		return walkErr
	}
	// A call cycle, by depth-first search.
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		switch state[name] {
		case open:
			return fmt.Errorf("template %q calls itself (%s); a context template cannot recurse", name, strings.Join(append(path, name), " -> "))
		case done:
			return nil
		}
		state[name] = open
		for _, callee := range calls[name] {
			if err := visit(callee, append(path, name)); err != nil {
				return err
			}
		}
		state[name] = done
		return nil
	}
	names := slices.Sorted(maps.Keys(calls))
	for _, name := range names {
		if err := visit(name, nil); err != nil {
			return err
		}
	}
	return nil
}

// walkNodes calls fn on n and every node below it.
func walkNodes(n parse.Node, fn func(parse.Node)) {
	if n == nil {
		return
	}
	fn(n)
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			walkNodes(c, fn)
		}
	case *parse.IfNode:
		walkBranch(&n.BranchNode, fn)
	case *parse.RangeNode:
		walkBranch(&n.BranchNode, fn)
	case *parse.WithNode:
		walkBranch(&n.BranchNode, fn)
	}
}

func walkBranch(b *parse.BranchNode, fn func(parse.Node)) {
	if b.List != nil {
		walkNodes(b.List, fn)
	}
	if b.ElseList != nil {
		walkNodes(b.ElseList, fn)
	}
}

// counted puts guard first in list and in the body of every loop below
// it, so that each template call and each iteration counts a step.
func counted(list *parse.ListNode, guard parse.Node) {
	for _, n := range list.Nodes {
		walkNodes(n, func(n parse.Node) {
			if r, ok := n.(*parse.RangeNode); ok {
				if r.List == nil {
					r.List = &parse.ListNode{NodeType: parse.NodeList, Pos: r.Pos}
				}
				if len(r.List.Nodes) == 0 || r.List.Nodes[0] != guard {
					r.List.Nodes = append([]parse.Node{guard}, r.List.Nodes...)
				}
			}
		})
	}
	list.Nodes = append([]parse.Node{guard}, list.Nodes...)
}

// templateRun runs a context template on the chunks of one document: its
// template is a clone whose functions count this run's steps and bytes.
// It is not safe for concurrent use.
type templateRun struct {
	t     *template.Template
	ctx   context.Context
	steps int
	// made is the bytes the functions made for this chunk, at most
	// madeMax.
	made, madeMax int
	out           boundedWriter
}

// start returns a run of the template under ctx: it stops when ctx is
// done.
func (ct *contextTemplate) start(ctx context.Context) (*templateRun, error) {
	c, err := ct.t.Clone()
	if err != nil {
		return nil, fmt.Errorf("context template: %w", err)
	}
	r := &templateRun{t: c, ctx: ctx}
	c.Funcs(r.funcs())
	return r, nil
}

// execute runs the template on one chunk's fields.
func (r *templateRun) execute(f ContextFields) (string, error) {
	r.steps, r.made = 0, 0
	r.out.b.Reset()
	r.out.max = len(f.Text) + MaxContextBytes
	r.madeMax = 4 * r.out.max
	if err := r.t.Execute(&r.out, f); err != nil {
		// The bound's own words, without the template's position and
		// function names in front of them.
		if b, ok := errors.AsType[*templateBound](err); ok {
			return "", b.err
		}
		return "", fmt.Errorf("context.template: %w", err)
	}
	return r.out.b.String(), nil
}

// step counts a loop iteration or template call.
func (r *templateRun) step() (string, error) {
	r.steps++
	if r.steps > MaxContextTemplateSteps {
		return "", &templateBound{fmt.Errorf("context.template: more than %d loop iterations and template calls on one chunk, the most it may run; loop over the chunk's fields, not over large numbers", MaxContextTemplateSteps)}
	}
	if err := r.ctx.Err(); err != nil {
		return "", &templateBound{fmt.Errorf("context.template: stopped: %w", err)}
	}
	return "", nil
}

// room counts n more bytes made by the run's functions, and refuses
// them past the run's bound.
func (r *templateRun) room(n int) error {
	if n < 0 || r.made+n > r.madeMax {
		return r.over()
	}
	r.made += n
	if err := r.ctx.Err(); err != nil {
		return &templateBound{fmt.Errorf("context.template: stopped: %w", err)}
	}
	return nil
}

func (r *templateRun) over() error {
	return &templateBound{fmt.Errorf("context.template: its functions (printf, print, html ...) would make more than %s of text for one chunk, the most it may make; write a shorter context", budget.Format(int64(r.madeMax)))}
}

// funcs are the template's functions that make text, bounded: each
// checks what it will make before it makes it (the strings it is given,
// and the widths its format asks for), then counts what it made.
func (r *templateRun) funcs() template.FuncMap {
	made := func(s string) (string, error) {
		if err := r.room(len(s)); err != nil {
			return "", err
		}
		return s, nil
	}
	// ahead refuses a result that would pass the bound before it is
	// made (what it copies and pads at the least); made counts it after.
	ahead := func(n int) error {
		if n < 0 || r.made+n > r.madeMax {
			return r.over()
		}
		return nil
	}
	escape := func(fn func(...any) string) func(...any) (string, error) {
		return func(args ...any) (string, error) {
			if err := ahead(6 * argBytes(args)); err != nil { // &#34; \u003C %3C: at most 6 bytes a byte
				return "", err
			}
			return made(fn(args...))
		}
	}
	return template.FuncMap{
		stepFunc: r.step,
		"printf": func(format string, args ...any) (string, error) {
			if err := ahead(len(format) + formatWidths(format, args) + argBytes(args)); err != nil {
				return "", err
			}
			return made(fmt.Sprintf(format, args...))
		},
		"print": func(args ...any) (string, error) {
			if err := ahead(argBytes(args) + len(args)); err != nil {
				return "", err
			}
			return made(fmt.Sprint(args...))
		},
		"println": func(args ...any) (string, error) {
			if err := ahead(argBytes(args) + len(args) + 1); err != nil {
				return "", err
			}
			return made(fmt.Sprintln(args...))
		},
		"html":     escape(template.HTMLEscaper),
		"js":       escape(template.JSEscaper),
		"urlquery": escape(template.URLQueryEscaper),
	}
}

// argBytes is the size of the string arguments of a function: what it
// will copy at the least.
func argBytes(args []any) int {
	n := 0
	for _, a := range args {
		switch a := a.(type) {
		case string:
			n += len(a)
		case []byte:
			n += len(a)
		}
	}
	return n
}

// formatWidths bounds the padding a printf format may ask for: the sum of
// its numbers (fmt takes widths and precisions up to 10^6), and of the
// integer arguments when it takes a width from them ('*').
func formatWidths(format string, args []any) int {
	const most = 1_000_000
	n := 0
	for i := 0; i < len(format); {
		if format[i] < '0' || format[i] > '9' {
			i++
			continue
		}
		v := 0
		for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
			v = min(v*10+int(format[i]-'0'), most)
		}
		n += v
	}
	if strings.Contains(format, "*") {
		for _, a := range args {
			switch a := a.(type) {
			case int:
				n += min(max(a, -a), most)
			case int64:
				n += int(min(max(a, -a), most))
			}
		}
	}
	return n
}

// boundedWriter holds a template's output up to max bytes and refuses
// what would pass it, which stops the template.
type boundedWriter struct {
	b   strings.Builder
	max int
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		return 0, &templateBound{fmt.Errorf("context.template: wrote more than %s for one chunk besides its text, the most (more than any embedder takes); write a shorter context", budget.Format(MaxContextBytes))}
	}
	return w.b.Write(p)
}
