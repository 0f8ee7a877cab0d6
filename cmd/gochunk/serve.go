package main

import (
	"cmp"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gochunk/gochunk/server"
)

// envName is the environment variable of serve's flag flagName: the
// reference server's name, else GOCHUNK_<FLAG> ("_" for "-").
func envName(flagName string) string {
	ref := map[string]string{"port": "PORT", "max-batch-tokens": "MAX_BATCH_TOKENS", "read-timeout": "READ_TIMEOUT_SECONDS",
		"write-timeout": "WRITE_TIMEOUT_SECONDS", "request-timeout": "REQUEST_TIMEOUT_SECONDS", "shutdown-grace": "SHUTDOWN_GRACE_SECONDS",
		"body-limit": "BODY_LIMIT_BYTES", "max-documents": "MAX_DOCUMENTS", "max-concurrent": "MAX_CONCURRENT",
		"max-memory": "MAX_MEMORY_BYTES"}
	return cmp.Or(ref[flagName], "GOCHUNK_"+strings.ToUpper(strings.ReplaceAll(flagName, "-", "_")))
}

// setSeconds parses a duration given in seconds ("60") or with a unit
// ("1m30s").
func setSeconds(d *time.Duration, v string) (err error) {
	if _, e := strconv.ParseFloat(v, 64); e == nil {
		v += "s"
	}
	if *d, err = time.ParseDuration(v); err != nil || *d < 0 {
		return fmt.Errorf("want seconds (60) or a duration (1m30s)")
	}
	return nil
}

func cmdServe(e env, args []string) int {
	fs := flagSet(e, "gochunk serve", `Usage: gochunk serve [flags]

Serves the HTTP API: POST /embed (the reference server's batch API),
POST /v1/chunk, POST /v1/embeddings and GET /v1/models (OpenAI's),
GET /v1/chunkers, /healthz, /readyz, /metrics, /openapi.json. Settings come
from the flags, then the environment (the reference server's PORT,
MAX_BATCH_TOKENS, *_TIMEOUT_SECONDS, BODY_LIMIT_BYTES, MAX_MEMORY_BYTES…;
GOCHUNK_<FLAG> for the others), then --config, then the defaults. SIGTERM
or SIGINT stops accepting and lets in-flight requests finish.

Flags:
`)
	cfg := server.DefaultConfig()
	var pf pipelineFlags
	pf.registerResources(fs)
	configPath := fs.String("config", "", "JSON or YAML `FILE` of settings: the flags' names (with - or _), e.g. {\"port\": 9000, \"embedder\": \"static:minishlab/potion-base-8M\"}")
	port := fs.Int("port", 8080, "port to listen on")
	fs.StringVar(&cfg.Addr, "addr", "", "full listen address, e.g. 127.0.0.1:9000 (overrides --port)")
	for name, d := range map[string]*time.Duration{"read-timeout": &cfg.ReadTimeout, "write-timeout": &cfg.WriteTimeout,
		"request-timeout": &cfg.RequestTimeout, "shutdown-grace": &cfg.ShutdownGrace, "queue-wait": &cfg.QueueWait} {
		fs.Func(name, fmt.Sprintf("seconds allowed for the %s (default %v)", strings.ReplaceAll(name, "-", " "), d.Seconds()), func(v string) error { return setSeconds(d, v) })
	}
	fs.Int64Var(&cfg.BodyLimit, "body-limit", cfg.BodyLimit, "largest request body in bytes")
	fs.IntVar(&cfg.MaxDocuments, "max-documents", cfg.MaxDocuments, "documents per request")
	fs.IntVar(&cfg.MaxConcurrent, "max-concurrent", cfg.MaxConcurrent, "requests served at once; more get 429")
	bytesVar(fs, "max-memory", "memory budget, bytes or with a unit (2GiB): requests reserve their estimate from it, wait --queue-wait, then get 503 (413 when they could never fit); default: 3/4 of the container's or machine's memory", &cfg.MaxMemory)
	fs.StringVar(&cfg.Token, "token", "", "bearer token required by the API")
	var level slog.Level
	fs.TextVar(&level, "log-level", slog.LevelInfo, "debug, info, warn or error")
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	if err := settings(fs, *configPath); err != nil {
		return fail(e, "serve", err)
	}
	pcfg, err := pf.config(e)
	if err != nil {
		return fail(e, "serve", err)
	}
	cfg.Pipeline = pcfg
	cfg.Addr = cmp.Or(cfg.Addr, fmt.Sprintf(":%d", *port))
	log := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	srv, err := server.New(e.ctx, cfg, log)
	if err != nil {
		return fail(e, "serve", err)
	}
	if err := srv.ListenAndServe(e.ctx); err != nil {
		return fail(e, "serve", err)
	}
	return exitOK
}

// settings sets the flags not given on the command line from the
// environment, else from the config file at path.
func settings(fs *flag.FlagSet, path string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if path != "" {
		file, err := readParams(path)
		if err != nil {
			return err
		}
		for _, key := range slices.Sorted(maps.Keys(file)) {
			name := strings.ReplaceAll(key, "_", "-")
			if fs.Lookup(name) == nil || name == "config" {
				var known []string
				fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
				return usagef("--config %s: unknown setting %q (known: %s)", path, key, strings.Join(known, ", "))
			}
			if given[name] {
				continue
			}
			if err := fs.Set(name, fmt.Sprint(file[key])); err != nil {
				return usagef("--config %s: %s: %v", path, key, err)
			}
		}
	}
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := os.LookupEnv(envName(f.Name)); ok && !given[f.Name] && f.Name != "config" && err == nil {
			if e := fs.Set(f.Name, v); e != nil {
				err = usagef("%s=%q: %v", envName(f.Name), v, e)
			}
		}
	})
	return err
}
