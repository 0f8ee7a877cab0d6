package main

import (
	"fmt"

	"github.com/gochunk/gochunk/internal/budget"
	"github.com/gochunk/gochunk/internal/diskcache"
)

func cmdCache(e env, args []string) int {
	fs := flagSet(e, "gochunk cache", `Usage: gochunk cache [--prune SIZE] DIR...

Shows the entries and size of disk caches (--embed-cache-dir, --llm-cache);
--prune removes their least recently used entries down to SIZE (500MiB).

Flags:
`)
	prune := fs.String("prune", "", "prune each DIR to this size")
	dirs, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(dirs) == 0 {
		return fail(e, "cache", usagef("give at least one cache DIR"))
	}
	limit, err := budget.ParseBytes(*prune)
	if *prune != "" && err != nil {
		return fail(e, "cache", usagef("--prune %w", err))
	}
	for _, dir := range dirs {
		if *prune != "" {
			removed, freed, err := diskcache.Prune(dir, limit)
			if err != nil {
				return fail(e, "cache", err)
			}
			fmt.Fprintf(e.stdout, "%s: removed %d entries, %s\n", dir, removed, budget.Format(freed))
		}
		files, bytes, err := diskcache.Stat(dir)
		if err != nil {
			return fail(e, "cache", err)
		}
		fmt.Fprintf(e.stdout, "%s: %d entries, %s\n", dir, files, budget.Format(bytes))
	}
	return exitOK
}
