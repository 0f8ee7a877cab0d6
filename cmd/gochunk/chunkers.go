package main

import (
	"github.com/gochunk/gochunk/chunkers"

	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
)

func cmdChunkers(e env, args []string) int {
	fs := flag.NewFlagSet("gochunk chunkers", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	asJSON := fs.Bool("json", false, "print JSON: a list of {name, summary, default_unit, params}")
	fs.Usage = func() {
		fmt.Fprint(e.stderr, "Usage: gochunk chunkers [--json]\n\nLists every chunker with its default size unit (when --tokenizer is not given),\nits parameters and their defaults.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	reg := registry()
	if *asJSON {
		type entry struct {
			Name    string `json:"name"`
			Summary string `json:"summary"`
			Unit    string `json:"default_unit"`
			Params  any    `json:"params"`
		}
		var list []entry
		for _, n := range reg.Names() {
			s, _ := reg.Lookup(n)
			list = append(list, entry{n, s.Summary, chunkers.DefaultUnit(s), s.Params()})
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return exitInput
		}
		return exitOK
	}
	for _, n := range reg.Names() {
		s, _ := reg.Lookup(n)
		fmt.Fprintf(e.stdout, "%s\n  %s\n  sizes in: %s\n", n, s.Summary, chunkers.DefaultUnit(s))
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		for _, p := range s.Params() {
			def, _ := json.Marshal(p.Default)
			fmt.Fprintf(tw, "    %s\t%s\t= %s\t%s\n", p.Name, p.Type, strings.TrimSpace(string(def)), p.Doc)
		}
		tw.Flush()
		fmt.Fprintln(e.stdout)
	}
	return exitOK
}
