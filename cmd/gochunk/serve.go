package main

import (
	"cmp"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gochunk/gochunk/pipeline/pipelineflag"
	"github.com/gochunk/gochunk/server"
	"github.com/gochunk/gochunk/store"
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
	pf := pipelineFlags(e)
	pf.RegisterResources(fs)
	configPath := fs.String("config", "", "JSON or YAML `FILE` of settings: the flags' names (with - or _), e.g. {\"port\": 9000, \"embedder\": \"static:minishlab/potion-base-8M\"}")
	port := fs.Int("port", 8080, "port to listen on")
	fs.StringVar(&cfg.Addr, "addr", "", "full listen address, e.g. 127.0.0.1:9000 (overrides --port)")
	for name, d := range map[string]*time.Duration{"read-timeout": &cfg.ReadTimeout, "write-timeout": &cfg.WriteTimeout,
		"request-timeout": &cfg.RequestTimeout, "shutdown-grace": &cfg.ShutdownGrace, "queue-wait": &cfg.QueueWait} {
		pipelineflag.SecondsVar(fs, d, name, fmt.Sprintf("seconds allowed for the %s (default %v)", strings.ReplaceAll(name, "-", " "), d.Seconds()))
	}
	fs.Int64Var(&cfg.BodyLimit, "body-limit", cfg.BodyLimit, "largest request body in bytes")
	fs.IntVar(&cfg.MaxDocuments, "max-documents", cfg.MaxDocuments, "documents per request")
	fs.IntVar(&cfg.MaxConcurrent, "max-concurrent", cfg.MaxConcurrent, "requests served at once; more get 429")
	pipelineflag.BytesVar(fs, "max-memory", "memory budget, bytes or with a unit (2GiB): requests reserve their estimate from it, wait --queue-wait, then get 503 (413 when they could never fit); default: 3/4 of the container's or machine's memory", &cfg.MaxMemory)
	fs.StringVar(&cfg.Token, "token", "", "bearer token required by the API")
	where := fs.String("store", "", "a store gochunk index filled (SQLite file or postgres:// URL), searched by POST /v1/search")
	var level slog.Level
	fs.TextVar(&level, "log-level", slog.LevelInfo, "debug, info, warn or error")
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	if err := pipelineflag.Layer(fs, *configPath, envName); err != nil {
		return fail(e, "serve", err)
	}
	pcfg, err := pf.Config()
	if err != nil {
		return fail(e, "serve", err)
	}
	cfg.Pipeline = pcfg
	if *where != "" {
		if cfg.Store, err = store.Open(e.ctx, *where); err != nil {
			return fail(e, "serve", err)
		}
		defer cfg.Store.Close()
	}
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
