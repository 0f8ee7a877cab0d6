package main

import (
	"github.com/gochunk/gochunk/chunkers"

	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
)

func cmdChunkers(e env, args []string) int {
	fs := flagSet(e, "gochunk chunkers", "Usage: gochunk chunkers [--json]\n\nLists every chunker with its default size unit (when --tokenizer is not given),\nits parameters and their defaults.\n\nFlags:\n")
	asJSON := fs.Bool("json", false, "print JSON: a list of {name, summary, default_unit, uses_embedder, uses_llm, params}")
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	list := chunkers.New().List()
	if *asJSON {
		return writeJSON(e, list)
	}
	for _, c := range list {
		fmt.Fprintf(e.stdout, "%s\n  %s\n  sizes in: %s\n", c.Name, c.Summary, c.DefaultUnit)
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		for _, p := range c.Params {
			def, _ := json.Marshal(p.Default)
			fmt.Fprintf(tw, "    %s\t%s\t= %s\t%s\n", p.Name, p.Type, strings.TrimSpace(string(def)), p.Doc)
		}
		tw.Flush()
		fmt.Fprintln(e.stdout)
	}
	return exitOK
}
