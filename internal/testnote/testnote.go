// Package testnote lets a test package tell the person running `go test
// ./...` what it is doing: which optional tools it found, and when it starts
// something slow (a whole-binary build, an npm install).
//
// In package-list mode go test holds back a passing package's output, so a
// note written to standard error is seen only with -v. Say therefore writes
// to standard output with -v (which go test streams) and otherwise to the
// controlling terminal, when there is one, so that an interactive first run
// is not silent; in CI without -v it writes nothing.
package testnote

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Say writes one line, formatted as fmt.Sprintf does, where the person running
// the tests sees it (see the package's documentation). It must be called after
// the test flags are parsed: from a test, or from TestMain after m.Run.
func Say(format string, args ...any) {
	line := strings.TrimRight(fmt.Sprintf(format, args...), "\n") + "\n"
	if testing.Verbose() {
		io.WriteString(os.Stdout, line)
		return
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer tty.Close()
	io.WriteString(tty, line)
}

// A Tool is something optional that a package's tests use when the machine
// has it, and skip without.
type Tool struct {
	// Name is what to install, as a Debian package or a path.
	Name string
	// Enables says which tests it enables, in a few words.
	Enables string
	// Found reports whether the machine has it.
	Found func() bool
}

func onPath(names ...string) func() bool {
	return func() bool {
		for _, n := range names {
			if _, err := exec.LookPath(n); err != nil {
				return false
			}
		}
		return true
	}
}

func anyOnPath(names ...string) func() bool {
	return func() bool {
		for _, n := range names {
			if _, err := exec.LookPath(n); err == nil {
				return true
			}
		}
		return false
	}
}

func pythonHas(modules string) func() bool {
	return func() bool {
		for _, p := range []string{"python3", "/usr/bin/python3"} {
			if err := exec.Command(p, "-c", "import "+modules).Run(); err == nil {
				return true
			}
		}
		return false
	}
}

// Node is node and npm, which install and run the reference libraries.
func Node() Tool {
	return Tool{"nodejs npm", "the reference libraries from npm", onPath("node", "npm")}
}

// Pdftotext is Poppler's pdftotext, the reference PDF engine.
func Pdftotext() Tool { return Tool{"poppler-utils", "PDFium against Poppler", onPath("pdftotext")} }

// Pandoc makes Word, OpenDocument and EPUB files at test time.
func Pandoc() Tool { return Tool{"pandoc", "office files made at test time", onPath("pandoc")} }

// Openpyxl makes Excel files at test time.
func Openpyxl() Tool {
	return Tool{"python3-openpyxl", "Excel files made at test time", pythonHas("openpyxl")}
}

// ONNX builds ONNX models of real shapes at test time.
func ONNX() Tool {
	return Tool{"python3-onnx", "ONNX models built at test time", pythonHas("onnx, numpy")}
}

// Chromium drives the playground and prints test PDFs.
func Chromium() Tool {
	return Tool{"chromium", "the browser and printed-PDF tests", anyOnPath("chromium", "chromium-browser", "google-chrome")}
}

// Postgres is PostgreSQL's server, for throwaway clusters.
func Postgres() Tool {
	return Tool{"postgresql", "the PostgreSQL store", func() bool {
		if onPath("initdb", "pg_ctl")() {
			return true
		}
		found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
		return len(found) > 0
	}}
}

// Shared is the evaluation data and tokenizer files beside the repository;
// dir is its path from the package's directory.
func Shared(dir string) Tool {
	return Tool{"../shared", "the evaluation corpora and tokenizer files", func() bool {
		_, err := os.Stat(dir)
		return err == nil
	}}
}

// Summary says, in one line, which of a package's optional tools were
// missing, with what they would enable, and which were found. pkg names the
// package (as "gochunk/layout"). When every tool is there it says so only
// with -v.
func Summary(pkg string, tools ...Tool) {
	var found, missing []string
	for _, t := range tools {
		if t.Found() {
			found = append(found, t.Name)
		} else {
			missing = append(missing, fmt.Sprintf("%s (%s)", t.Name, t.Enables))
		}
	}
	if len(missing) == 0 {
		if testing.Verbose() {
			Say("%s: every optional tool found (%s)", pkg, strings.Join(found, ", "))
		}
		return
	}
	have := ""
	if len(found) > 0 {
		have = "; found: " + strings.Join(found, ", ")
	}
	Say("%s: skipped without %s%s; go test -v shows each skip", pkg, strings.Join(missing, ", "), have)
}
