package main

import (
	"flag"
	"fmt"
)

// flagSet returns a flag set whose usage prints text then the flags.
func flagSet(e env, name, text string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprint(e.stderr, text)
		fs.PrintDefaults()
	}
	return fs
}
