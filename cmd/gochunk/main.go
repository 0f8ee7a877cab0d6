// Command gochunk splits documents into chunks for retrieval.
//
// Run "gochunk help" for its commands (chunk, chunkers, bench, embed,
// eval, tune, inspect, serve, extract, version) and "gochunk COMMAND
// --help" for a command's flags.
//
// Exit status: 0 on success, 1 when an input could not be chunked, 2 on a
// usage error (bad flag, unknown chunker or tokenizer, bad configuration).
// Errors go to standard error, never to standard output.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/gochunk/gochunk"
)

// version is set at build time with -ldflags "-X main.version=..."; else
// the build information says it (go install ...@v1.2.3), else "dev".
var version = ""

// versionString names the module, its version and, for builds from a
// checkout, the commit and whether the tree was modified.
func versionString() string {
	v, extra := version, ""
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		var rev, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", modified"
				}
			}
		}
		if rev != "" {
			extra = fmt.Sprintf(" (commit %.12s%s)", rev, modified)
		}
		extra += " " + info.GoVersion
	}
	if v == "" {
		v = "dev"
	}
	return "github.com/gochunk/gochunk " + v + extra
}

// Exit codes.
const (
	exitOK    = 0
	exitInput = 1
	exitUsage = 2
	// exitInterrupted is the shells' code for a command ended by Ctrl-C.
	exitInterrupted = 130
)

func main() {
	// Ctrl-C and SIGTERM cancel the command's context: it stops cleanly,
	// writing what it has, and a second signal ends it at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// env is what a command reads and writes, so tests can run it in-process.
type env struct {
	// ctx is cancelled by Ctrl-C or SIGTERM.
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	// stderrTTY says whether stderr is a terminal (for progress bars).
	stderrTTY bool
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, stderrTTY: isTerminal(stderr)}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "chunk":
		return cmdChunk(e, args[1:])
	case "chunkers":
		return cmdChunkers(e, args[1:])
	case "bench":
		return cmdBench(e, args[1:])
	case "embed":
		return cmdEmbed(e, args[1:])
	case "eval":
		return cmdEval(e, args[1:])
	case "tune":
		return cmdTune(e, args[1:])
	case "inspect":
		return cmdInspect(e, args[1:])
	case "serve":
		return cmdServe(e, args[1:])
	case "extract":
		return cmdExtract(e, args[1:])
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, versionString())
		return exitOK
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "gochunk: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `gochunk splits documents into chunks for retrieval (RAG).

Usage:
  gochunk chunk [flags] [FILE...|-]   chunk files or standard input, one JSON chunk per line
  gochunk chunkers [--json]           list chunkers, their parameters and defaults
  gochunk bench [flags] [FILE...]     measure speed (MB/s, chunks/s) and peak memory per chunker
  gochunk embed [flags] [FILE|-]      embed one text per line, JSONL vectors on stdout
  gochunk eval --dataset PATH [flags] score chunkers: recall, precision, precision Ω, IoU
  gochunk tune --dataset PATH --param KEY=RANGE [flags]   search parameters for an objective
  gochunk inspect [flags] FILE        HTML page: text coloured by chunk, similarity curve, breakpoints
  gochunk serve [flags]               HTTP API: /embed, /v1/chunk, /v1/embeddings, /metrics
  gochunk extract [--elements] FILE   the text (or layout elements) chunk offsets of a PDF refer to
  gochunk version                     print the version

Run 'gochunk COMMAND --help' for a command's flags.
Exit status: 0 success, 1 an input could not be chunked, 2 usage error.
`)
}

// parseFlags parses args with fs, allowing flags after positional
// arguments ("gochunk chunk a.txt --size 100"). It returns the positional
// arguments, or an error already reported on stderr.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// A lone "-" is standard input; "--" ends the flags.
		i := 0
		for i < len(rest) && (rest[i] == "-" || !strings.HasPrefix(rest[i], "-")) {
			pos = append(pos, rest[i])
			i++
		}
		if i < len(rest) && rest[i] == "--" {
			return append(pos, rest[i+1:]...), nil
		}
		args = rest[i:]
		if len(args) == 0 {
			return pos, nil
		}
	}
}

// parseArgs parses args like parseFlags; when it returns ok false, the
// command must exit with code (0 after --help, 2 after a bad flag).
func parseArgs(fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	pos, err := parseFlags(fs, args)
	switch {
	case err == flag.ErrHelp:
		return nil, exitOK, false
	case err != nil:
		return nil, exitUsage, false
	}
	return pos, exitOK, true
}

// usageError is a failure caused by how gochunk was called.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitCode is exitUsage for an error of how gochunk was called or
// configured, exitInput otherwise.
func exitCode(err error) int {
	var u usageError
	if errors.As(err, &u) || errors.Is(err, gochunk.ErrConfig) {
		return exitUsage
	}
	return exitInput
}

// fail reports err of command cmd on stderr and returns its exit code.
func fail(e env, cmd string, err error) int {
	fmt.Fprintf(e.stderr, "gochunk %s: %v\n", cmd, err)
	return exitCode(err)
}
