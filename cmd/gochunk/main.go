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
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/version"
)

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

func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, ok := stderr.(*os.File)
	e := env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, stderrTTY: ok && term.IsTerminal(int(f.Fd()))}
	name := "help"
	if len(args) > 0 {
		name = strings.TrimLeft(args[0], "-")
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(e, args[1:])
		}
	}
	switch name {
	case "version":
		fmt.Fprintln(stdout, version.String())
		return exitOK
	case "help", "h":
		usage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "gochunk: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

// command is a subcommand: its name, its arguments and what it does, for
// the usage text, and its function.
type command struct {
	name, args, summary string
	run                 func(env, []string) int
}

func commands() []command {
	return []command{
		{"chunk", "[flags] [FILE...|-]", "chunk files or standard input, one JSON chunk per line", cmdChunk},
		{"chunkers", "[--json]", "list chunkers, their parameters and defaults", cmdChunkers},
		{"bench", "[flags] [FILE...]", "measure speed (MB/s, chunks/s) and peak memory per chunker", cmdBench},
		{"embed", "[flags] [FILE|-]", "embed one text per line, JSONL vectors on stdout", cmdEmbed},
		{"eval", "--dataset PATH [flags] | generate --out DIR FILE|DIR...", "score chunkers: recall, precision Ω, IoU; reranked; LLM-judged; generate: questions about your own documents", cmdEval},
		{"tune", "--dataset PATH --param KEY=RANGE", "search parameters for an objective", cmdTune},
		{"inspect", "[flags] FILE", "HTML page: text coloured by chunk, similarity curve, breakpoints", cmdInspect},
		{"serve", "[flags]", "HTTP API: /embed, /v1/chunk, /v1/embeddings, /metrics", cmdServe},
		{"extract", "[--elements] FILE", "the text (or layout elements) chunk offsets of a PDF or HTML file refer to", cmdExtract},
		{"index", "[flags] SOURCE...", "chunk and embed documents into a store (SQLite or PostgreSQL), kept in step", cmdIndex},
		{"search", "[flags] QUERY", "search a store: vector, keyword or hybrid", cmdSearch},
		{"mcp", "[flags] [ROOT...]", "MCP server on stdin/stdout for agents and IDEs: search, chunk, extract, index, sources", cmdMCP},
		{"cache", "[--prune SIZE] DIR...", "show and prune disk caches of embeddings and model answers", cmdCache},
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, "gochunk splits documents into chunks for retrieval (RAG).\n\nUsage:\n")
	for _, c := range append(commands(), command{name: "version", summary: "print the version"}) {
		fmt.Fprintf(w, "  gochunk %-36s %s\n", c.name+" "+c.args, c.summary)
	}
	fmt.Fprint(w, "\nRun 'gochunk COMMAND --help' for a command's flags.\nExit status: 0 success, 1 an input could not be chunked, 2 usage error.\n")
}

// parseArgs parses args with fs, allowing flags after positional arguments
// ("gochunk chunk a.txt --size 100"); a lone "-" is standard input, "--"
// ends the flags. When ok is false the command must exit with code (0
// after --help, 2 after a bad flag, already reported on stderr).
func parseArgs(fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err == flag.ErrHelp {
			return nil, exitOK, false
		} else if err != nil {
			return nil, exitUsage, false
		}
		rest := fs.Args()
		i := 0
		for i < len(rest) && (rest[i] == "-" || !strings.HasPrefix(rest[i], "-")) {
			pos = append(pos, rest[i])
			i++
		}
		if i < len(rest) && rest[i] == "--" {
			return append(pos, rest[i+1:]...), exitOK, true
		}
		if args = rest[i:]; len(args) == 0 {
			return pos, exitOK, true
		}
	}
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
