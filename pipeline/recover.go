package pipeline

import (
	"fmt"
	"runtime/debug"
)

// PanicError is a panic inside a chunker, an embedder or a reader,
// recovered into an error for the one document it happened on: the other
// documents of a request or a run go on, and a server stays up. It is a
// bug of gochunk's (or of a custom chunker's); Stack says where, for the
// log and the report.
type PanicError struct {
	// Stage is what was running: "load", "chunk", "offsets" or "embed".
	Stage string
	// Value is what was passed to panic.
	Value any
	// Stack is the panicking goroutine's stack.
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error while %s: %v (a bug: please report it with the input)", stageVerb[e.Stage], e.Value)
}

var stageVerb = map[string]string{"load": "reading the document", "chunk": "chunking", "offsets": "chunking", "embed": "embedding"}

// recovered turns a panic into a *PanicError in *err; deferred by every
// stage that runs user input through code that might panic.
func recovered(stage string, err *error) {
	if p := recover(); p != nil {
		*err = &PanicError{Stage: stage, Value: p, Stack: debug.Stack()}
	}
}
