package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gochunk/gochunk/server"
)

// serveFile is the config file of gochunk serve (JSON or YAML).
type serveFile struct {
	// The settings named as server.Config names them in JSON (addr,
	// token, tokenizer, embedder, embed_url, onnx_*, llm_*, max_*).
	server.Config
	// Those given in other units.
	Port                int   `json:"port"`
	ReadTimeoutSeconds  int   `json:"read_timeout_seconds"`
	WriteTimeoutSeconds int   `json:"write_timeout_seconds"`
	RequestTimeoutSecs  int   `json:"request_timeout_seconds"`
	ShutdownGraceSecs   int   `json:"shutdown_grace_seconds"`
	BodyLimitBytes      int64 `json:"body_limit_bytes"`
}

func cmdServe(e env, args []string) int {
	fs := flag.NewFlagSet("gochunk serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	def := server.DefaultConfig()
	var (
		configPath = fs.String("config", "", "JSON or YAML `FILE` with the settings below (snake_case names, times in seconds)")
		port       = fs.Int("port", 8080, "port to listen on (env PORT)")
		addr       = fs.String("addr", "", "full listen address, e.g. 127.0.0.1:9000 (overrides --port)")
		batch      = fs.Int("max-batch-tokens", def.MaxBatchTokens, "tokens per embedder call for chunk embeddings (env MAX_BATCH_TOKENS)")
		readT      = fs.Int("read-timeout", 60, "seconds to read a request (env READ_TIMEOUT_SECONDS)")
		writeT     = fs.Int("write-timeout", 60, "seconds to write an answer (env WRITE_TIMEOUT_SECONDS)")
		reqT       = fs.Int("request-timeout", 60, "seconds of work allowed per request (env REQUEST_TIMEOUT_SECONDS)")
		grace      = fs.Int("shutdown-grace", 30, "seconds in-flight requests may finish after SIGTERM (env SHUTDOWN_GRACE_SECONDS)")
		bodyLimit  = fs.Int64("body-limit", def.BodyLimit, "largest request body in bytes (env BODY_LIMIT_BYTES)")
		maxDocs    = fs.Int("max-documents", def.MaxDocuments, "documents per request (env MAX_DOCUMENTS)")
		maxConc    = fs.Int("max-concurrent", def.MaxConcurrent, "requests served at once; more get 429 (env MAX_CONCURRENT)")
		token      = fs.String("token", "", "bearer token required by the API (env GOCHUNK_TOKEN)")
		tok        = fs.String("tokenizer", def.Tokenizer, "default size unit (env GOCHUNK_TOKENIZER)")
		emb        = fs.String("embedder", def.Embedder, "embedder: lexical, static:MODEL, onnx:MODEL, openai:MODEL (env GOCHUNK_EMBEDDER)")
		embURL     = fs.String("embed-url", "", "base URL for openai:MODEL (env GOCHUNK_EMBED_URL)")
		onnxBack   = fs.String("onnx-backend", "go", "how onnx:MODEL runs: go (pure Go) or ort (ONNX Runtime; binaries built with -tags ORT) (env GOCHUNK_ONNX_BACKEND)")
		onnxLib    = fs.String("onnx-library", "", "path of libonnxruntime for --onnx-backend ort (env GOCHUNK_ONNX_LIBRARY)")
		onnxCUDA   = fs.Bool("onnx-cuda", false, "run --onnx-backend ort on a CUDA GPU (env GOCHUNK_ONNX_CUDA=1)")
		onnxPool   = fs.String("onnx-pooling", "", "how onnx:MODEL pools token vectors: cls, mean or last; default: the model's configuration (env GOCHUNK_ONNX_POOLING)")
		llmURL     = fs.String("llm-url", "", "base URL of the chat API of the LLM chunkers (env GOCHUNK_LLM_URL)")
		llmModel   = fs.String("llm-model", "", "chat model of the LLM chunkers; none means they are refused (env GOCHUNK_LLM_MODEL)")
		logLevel   = fs.String("log-level", "info", "debug, info, warn or error")
	)
	fs.Usage = func() {
		fmt.Fprint(e.stderr, `Usage: gochunk serve [flags]

Serves the HTTP API: POST /embed (the reference server's batch API),
POST /v1/chunk, POST /v1/embeddings (OpenAI-compatible), GET /v1/chunkers,
/healthz, /readyz, /metrics (Prometheus), /openapi.json. Settings come from
the flags, then the environment, then --config, then the defaults. SIGTERM or
SIGINT stops accepting and lets in-flight requests finish.

Flags:
`)
		fs.PrintDefaults()
	}
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	var file serveFile
	if *configPath != "" {
		data, err := os.ReadFile(*configPath)
		if err == nil {
			data, err = yaml.YAMLToJSON(data)
		}
		if err == nil {
			dec := json.NewDecoder(bytesReader(data))
			dec.DisallowUnknownFields()
			err = dec.Decode(&file)
		}
		if err != nil {
			fmt.Fprintln(e.stderr, "gochunk serve: config:", err)
			return exitUsage
		}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	bad := ""
	// pick returns the flag when set, else the environment, else the file,
	// else the flag's default.
	pickInt := func(name, envName string, flagVal int, fileVal int) int {
		if set[name] {
			return flagVal
		}
		if v := os.Getenv(envName); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				bad = fmt.Sprintf("%s=%q is not a whole number", envName, v)
			}
			return n
		}
		if fileVal != 0 {
			return fileVal
		}
		return flagVal
	}
	pickStr := func(name, envName, flagVal, fileVal string) string {
		if set[name] {
			return flagVal
		}
		if v := os.Getenv(envName); v != "" {
			return v
		}
		if fileVal != "" {
			return fileVal
		}
		return flagVal
	}
	cfg := server.Config{
		MaxBatchTokens: pickInt("max-batch-tokens", "MAX_BATCH_TOKENS", *batch, file.MaxBatchTokens),
		ReadTimeout:    time.Duration(pickInt("read-timeout", "READ_TIMEOUT_SECONDS", *readT, file.ReadTimeoutSeconds)) * time.Second,
		WriteTimeout:   time.Duration(pickInt("write-timeout", "WRITE_TIMEOUT_SECONDS", *writeT, file.WriteTimeoutSeconds)) * time.Second,
		RequestTimeout: time.Duration(pickInt("request-timeout", "REQUEST_TIMEOUT_SECONDS", *reqT, file.RequestTimeoutSecs)) * time.Second,
		ShutdownGrace:  time.Duration(pickInt("shutdown-grace", "SHUTDOWN_GRACE_SECONDS", *grace, file.ShutdownGraceSecs)) * time.Second,
		BodyLimit:      int64(pickInt("body-limit", "BODY_LIMIT_BYTES", int(*bodyLimit), int(file.BodyLimitBytes))),
		MaxDocuments:   pickInt("max-documents", "MAX_DOCUMENTS", *maxDocs, file.MaxDocuments),
		MaxConcurrent:  pickInt("max-concurrent", "MAX_CONCURRENT", *maxConc, file.MaxConcurrent),
		Token:          pickStr("token", "GOCHUNK_TOKEN", *token, file.Token),
		Tokenizer:      pickStr("tokenizer", "GOCHUNK_TOKENIZER", *tok, file.Tokenizer),
		Embedder:       pickStr("embedder", "GOCHUNK_EMBEDDER", *emb, file.Embedder),
		EmbedURL:       pickStr("embed-url", "GOCHUNK_EMBED_URL", *embURL, file.EmbedURL),
		ONNXBackend:    pickStr("onnx-backend", "GOCHUNK_ONNX_BACKEND", *onnxBack, file.ONNXBackend),
		ONNXLibrary:    pickStr("onnx-library", "GOCHUNK_ONNX_LIBRARY", *onnxLib, file.ONNXLibrary),
		ONNXPooling:    pickStr("onnx-pooling", "GOCHUNK_ONNX_POOLING", *onnxPool, file.ONNXPooling),
		ONNXCUDA:       *onnxCUDA || !set["onnx-cuda"] && (os.Getenv("GOCHUNK_ONNX_CUDA") == "1" || file.ONNXCUDA),
		LLMURL:         pickStr("llm-url", "GOCHUNK_LLM_URL", *llmURL, file.LLMURL),
		LLMModel:       pickStr("llm-model", "GOCHUNK_LLM_MODEL", *llmModel, file.LLMModel),
	}
	p := pickInt("port", "PORT", *port, file.Port)
	cfg.Addr = fmt.Sprintf(":%d", p)
	if a := pickStr("addr", "GOCHUNK_ADDR", *addr, file.Addr); a != "" {
		cfg.Addr = a
	}
	if bad != "" {
		fmt.Fprintln(e.stderr, "gochunk serve:", bad)
		return exitUsage
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintln(e.stderr, "gochunk serve: --log-level:", err)
		return exitUsage
	}
	log := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := server.New(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(e.stderr, "gochunk serve:", err)
		return exitUsage
	}
	if err := srv.ListenAndServe(ctx); err != nil {
		fmt.Fprintln(e.stderr, "gochunk serve:", err)
		return exitInput
	}
	return exitOK
}
