package main

import (
	"bytes"
	"io"
	"os"
	"unicode/utf8"

	"golang.org/x/term"
)

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func utf8Valid(s string) bool { return utf8.ValidString(s) }

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
