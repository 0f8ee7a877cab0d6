package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gochunk/gochunk/hfhub"
	"github.com/gochunk/gochunk/internal/apiclient"
	"github.com/gochunk/gochunk/tokenize"
)

// ModelCard is what gochunk knows of an embedding model served through an
// OpenAI-compatible API: its input limit and its own tokenizer, from the
// model's card (see OpenAIModels).
type ModelCard struct {
	// Name is the model's name as servers spell it, without a tag.
	Name string
	// Limit is the most tokens one input may have, the special tokens
	// the model adds included: the context the model is served with
	// (for Ollama, the context_length of its GGUF file).
	Limit int
	// Special is how many tokens the model adds to every input ([CLS]
	// and [SEP], <bos> and <eos>, or an end-of-text token).
	Special int
	// Tokenizer is "cl100k_base" or the hub repository whose
	// tokenizer.json is the model's tokenizer.
	Tokenizer string
	// Source is the address of the model's card.
	Source string
}

// ChunkLimit is the most tokens of the model's tokenizer a text may have
// to be embedded whole: Limit less the special tokens.
func (m ModelCard) ChunkLimit() int { return max(1, m.Limit-m.Special) }

// openAIModels are the models of OpenAIModels, by lower-case name; a key
// with a tag (name:tag) is a variant of the name that differs.
var openAIModels = func() map[string]ModelCard {
	const (
		bertSpecial = 2 // [CLS] text [SEP]
		nomic       = "https://huggingface.co/nomic-ai/nomic-embed-text-v1.5"
		mxbai       = "https://huggingface.co/mixedbread-ai/mxbai-embed-large-v1"
		bgeM3       = "https://huggingface.co/BAAI/bge-m3"
		minilm6     = "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2"
		minilm12    = "https://huggingface.co/sentence-transformers/all-MiniLM-L12-v2"
		arcticM     = "https://huggingface.co/Snowflake/snowflake-arctic-embed-m"
		arcticLong  = "https://huggingface.co/Snowflake/snowflake-arctic-embed-m-long"
		arctic2     = "https://huggingface.co/Snowflake/snowflake-arctic-embed-l-v2.0"
		gemma       = "https://huggingface.co/google/embeddinggemma-300m"
		qwen        = "https://huggingface.co/Qwen/Qwen3-Embedding-0.6B"
		openai      = "https://platform.openai.com/docs/guides/embeddings"
	)
	cards := []ModelCard{
		{"text-embedding-3-small", 8191, 0, "cl100k_base", openai},
		{"text-embedding-3-large", 8191, 0, "cl100k_base", openai},
		{"text-embedding-ada-002", 8191, 0, "cl100k_base", openai},
		// Ollama's nomic-embed-text (v1.5) runs with the 2,048 tokens
		// its GGUF file says it was trained with; the card's 8,192 need
		// rotary scaling Ollama does not do.
		{"nomic-embed-text", 2048, bertSpecial, "nomic-ai/nomic-embed-text-v1.5", "https://ollama.com/library/nomic-embed-text"},
		{"nomic-ai/nomic-embed-text-v1.5", 8192, bertSpecial, "nomic-ai/nomic-embed-text-v1.5", nomic},
		{"nomic-ai/nomic-embed-text-v1", 8192, bertSpecial, "nomic-ai/nomic-embed-text-v1", "https://huggingface.co/nomic-ai/nomic-embed-text-v1"},
		{"mxbai-embed-large", 512, bertSpecial, "mixedbread-ai/mxbai-embed-large-v1", "https://ollama.com/library/mxbai-embed-large"},
		{"mixedbread-ai/mxbai-embed-large-v1", 512, bertSpecial, "mixedbread-ai/mxbai-embed-large-v1", mxbai},
		// XLM-RoBERTa's SentencePiece: <s> text </s>.
		{"bge-m3", 8192, 2, "BAAI/bge-m3", "https://ollama.com/library/bge-m3"},
		{"baai/bge-m3", 8192, 2, "BAAI/bge-m3", bgeM3},
		// all-MiniLM was trained on 128 tokens and is used with at most
		// 256 (sentence-transformers' max_seq_length), though its
		// positions reach 512 and Ollama lets 512 through.
		{"all-minilm", 256, bertSpecial, "sentence-transformers/all-MiniLM-L6-v2", "https://ollama.com/library/all-minilm"},
		{"all-minilm:33m", 256, bertSpecial, "sentence-transformers/all-MiniLM-L12-v2", minilm12},
		{"sentence-transformers/all-minilm-l6-v2", 256, bertSpecial, "sentence-transformers/all-MiniLM-L6-v2", minilm6},
		{"sentence-transformers/all-minilm-l12-v2", 256, bertSpecial, "sentence-transformers/all-MiniLM-L12-v2", minilm12},
		// Every size of the first Arctic Embed shares bert-base-uncased's
		// vocabulary; the 137m one is m-long, 2,048 tokens without
		// rotary scaling.
		{"snowflake-arctic-embed", 512, bertSpecial, "Snowflake/snowflake-arctic-embed-m", "https://ollama.com/library/snowflake-arctic-embed"},
		{"snowflake-arctic-embed:137m", 2048, bertSpecial, "Snowflake/snowflake-arctic-embed-m-long", arcticLong},
		{"snowflake/snowflake-arctic-embed-m", 512, bertSpecial, "Snowflake/snowflake-arctic-embed-m", arcticM},
		{"snowflake/snowflake-arctic-embed-m-long", 2048, bertSpecial, "Snowflake/snowflake-arctic-embed-m-long", arcticLong},
		{"snowflake-arctic-embed2", 8192, 2, "Snowflake/snowflake-arctic-embed-l-v2.0", "https://ollama.com/library/snowflake-arctic-embed2"},
		{"snowflake/snowflake-arctic-embed-l-v2.0", 8192, 2, "Snowflake/snowflake-arctic-embed-l-v2.0", arctic2},
		// Gemma's tokenizer: <bos> text <eos>.
		{"embeddinggemma", 2048, 2, "google/embeddinggemma-300m", "https://ollama.com/library/embeddinggemma"},
		{"google/embeddinggemma-300m", 2048, 2, "google/embeddinggemma-300m", gemma},
		// Qwen3's byte-level BPE, text <|endoftext|>; every size has the
		// same tokenizer and 32k context.
		{"qwen3-embedding", 32768, 1, "Qwen/Qwen3-Embedding-0.6B", "https://ollama.com/library/qwen3-embedding"},
		{"qwen/qwen3-embedding-0.6b", 32768, 1, "Qwen/Qwen3-Embedding-0.6B", qwen},
		{"qwen/qwen3-embedding-4b", 32768, 1, "Qwen/Qwen3-Embedding-4B", "https://huggingface.co/Qwen/Qwen3-Embedding-4B"},
		{"qwen/qwen3-embedding-8b", 32768, 1, "Qwen/Qwen3-Embedding-8B", "https://huggingface.co/Qwen/Qwen3-Embedding-8B"},
	}
	m := make(map[string]ModelCard, len(cards))
	for _, c := range cards {
		m[strings.ToLower(c.Name)] = c
	}
	return m
}()

// OpenAIModels returns the table of embedding models gochunk knows, by
// name as servers spell them (Ollama's library names and the hub ids
// vLLM and Text Embeddings Inference serve under).
func OpenAIModels() []ModelCard {
	out := make([]ModelCard, 0, len(openAIModels))
	for _, c := range openAIModels {
		out = append(out, c)
	}
	return out
}

// LookupModel returns what the table knows of model, a name as a server
// spells it: a tag after ":" (nomic-embed-text:latest, :v1.5) is left
// out unless the table holds that variant; case does not matter.
func LookupModel(model string) (ModelCard, bool) {
	key := strings.ToLower(strings.TrimSpace(model))
	if c, ok := openAIModels[key]; ok {
		return c, true
	}
	name, _, _ := strings.Cut(key, ":")
	c, ok := openAIModels[name]
	return c, ok
}

// ServerLimit asks the server at baseURL (an OpenAI-compatible base URL,
// such as http://localhost:11434/v1) the input limit of model, in its
// tokens, special tokens included: Ollama's POST /api/show (the model's
// context_length, lowered to a num_ctx among its parameters) or Text
// Embeddings Inference's GET /info (max_input_length). It returns 0 and
// no error when the server tells neither, and names the source found.
func ServerLimit(ctx context.Context, client *http.Client, baseURL, apiKey, model string, timeout time.Duration) (int, string, error) {
	root, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || root.Host == "" {
		return 0, "", fmt.Errorf("embed url %q: not an address", baseURL)
	}
	root.Path = strings.TrimSuffix(root.Path, "/v1")
	base := strings.TrimRight(root.String(), "/")
	if client == nil {
		client = http.DefaultClient
	}
	body, _ := json.Marshal(map[string]string{"model": model})
	if data, err := apiclient.Post(ctx, client, base+"/api/show", apiKey, body, timeout, 16<<20); err == nil {
		if n := ollamaLimit(data); n > 0 {
			return n, "Ollama's /api/show", nil
		}
	} else if !isStatus(err) {
		// The server did not answer (it is down, or silent until the
		// timeout): asking it again on another path would only double the
		// wait before the embedder is made.
		return 0, "", err
	}
	if n, err := teiLimit(ctx, client, base+"/info", apiKey, timeout); err == nil && n > 0 {
		return n, "Text Embeddings Inference's /info", nil
	} else if err != nil && !isStatus(err) {
		return 0, "", err
	}
	return 0, "", nil
}

// isStatus tells an HTTP error answer (the server is there, and does not
// serve the path) from a network error.
func isStatus(err error) bool {
	var se *apiclient.StatusError
	return errors.As(err, &se)
}

// ollamaLimit reads the limit from an /api/show answer.
func ollamaLimit(data []byte) int {
	var show struct {
		ModelInfo  map[string]json.RawMessage `json:"model_info"`
		Parameters string                     `json:"parameters"`
	}
	if json.Unmarshal(data, &show) != nil {
		return 0
	}
	n := 0
	for k, v := range show.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			if c, err := strconv.Atoi(strings.TrimSpace(string(v))); err == nil && c > 0 {
				n = c
			}
		}
	}
	for _, line := range strings.Split(show.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if c, err := strconv.Atoi(f[1]); err == nil && c > 0 && (n == 0 || c < n) {
				n = c
			}
		}
	}
	return n
}

// teiLimit reads max_input_length from Text Embeddings Inference's /info.
func teiLimit(ctx context.Context, client *http.Client, address, apiKey string, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, address, nil)
	if err != nil {
		return 0, err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, &apiclient.StatusError{URL: address, Code: resp.StatusCode, Status: resp.Status}
	}
	var info struct {
		MaxInputLength int `json:"max_input_length"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&info); err != nil {
		return 0, nil // not TEI's answer
	}
	return info.MaxInputLength, nil
}

// openAIModel settles what the embedder of model counts in and against:
// the model's own tokenizer (opt.ModelTokenizer, else the table's, from
// the hub cache or downloaded there), and its limit (the server's where
// it tells, never above the table's, else the table's). What cannot be
// settled is said through opt.Notice with what to pass.
func openAIModel(ctx context.Context, model string, opt Options) (tok tokenize.Encoder, limit, special int) {
	card, known := LookupModel(model)
	notice := func(s string) {
		if opt.Notice != nil {
			opt.Notice("openai:" + model + ": " + s)
		}
	}
	if known {
		limit, special = card.Limit, card.Special
	}
	hosted := known && card.Tokenizer == "cl100k_base"
	if !hosted && opt.BaseURL != "" && !strings.Contains(opt.BaseURL, "api.openai.com") {
		probe := cmpDuration(opt.Timeout, 10*time.Second)
		n, source, err := ServerLimit(ctx, opt.Client, opt.BaseURL, opt.APIKey, model, probe)
		switch {
		case n > 0 && (!known || n < card.Limit):
			limit = n
			notice(fmt.Sprintf("%s says it takes %d tokens", source, n))
		case err != nil && ctx.Err() == nil:
			notice(fmt.Sprintf("could not ask the server its input limit (%v)", err))
		}
	}
	switch {
	case opt.ModelTokenizer != nil:
		e, ok := opt.ModelTokenizer.(tokenize.Encoder)
		if !ok {
			notice(fmt.Sprintf("--tokenizer %s cannot split texts; it is not taken as the model's tokenizer", opt.ModelTokenizer.Name()))
			break
		}
		tok = e
		if !known {
			special = 0
		}
	case hosted:
		t, err := tokenize.NewTikToken(card.Tokenizer)
		if err == nil {
			tok = t
		}
	case known:
		path, err := hfhub.Download(ctx, card.Tokenizer, "", "tokenizer.json", hfhub.Options{CacheDir: opt.CacheDir, Offline: opt.Offline, Progress: opt.Progress, Warn: opt.Notice, Retries: 2})
		var hf *tokenize.HF
		if err == nil {
			hf, err = tokenize.LoadHF(path)
		}
		if err == nil {
			tok = hf
			break
		}
		how := fmt.Sprintf("pass --tokenizer hf:PATH/tokenizer.json (a copy of %s's) or --size in its tokens, at most %d", card.Tokenizer, card.ChunkLimit())
		if errors.Is(err, hfhub.ErrOffline) {
			notice(fmt.Sprintf("its tokenizer (the tokenizer.json of %s) is not in the hub cache (%s) and downloads are off; chunks cannot be counted in its tokens: run once online, or %s",
				card.Tokenizer, hfhub.CacheDir(hfhub.Options{CacheDir: opt.CacheDir}), how))
		} else {
			notice(fmt.Sprintf("its tokenizer (the tokenizer.json of %s) cannot be used (%v); chunks cannot be counted in its tokens: %s", card.Tokenizer, err, how))
		}
	}
	if !known && tok == nil {
		if limit > 0 {
			notice(fmt.Sprintf("gochunk does not know this model's tokenizer; its %d-token limit is counted in cl100k_base, which may differ: pass --tokenizer hf:ORG/NAME (the model's tokenizer.json from the hub) and --size in its tokens, at most %d", limit, limit))
		} else {
			notice("gochunk does not know this model's input limit or tokenizer and the server does not say (Ollama's /api/show, Text Embeddings Inference's /info); texts are counted in cl100k_base against 8191 tokens: pass --tokenizer hf:ORG/NAME (the model's tokenizer.json from the hub) and --size at most its limit")
		}
	}
	if !known && tok != nil && limit == 0 {
		notice("gochunk does not know this model's input limit and the server does not say (Ollama's /api/show, Text Embeddings Inference's /info): pass --size at most its limit")
	}
	return tok, limit, special
}

func cmpDuration(d, fallback time.Duration) time.Duration {
	if d > 0 && d < fallback {
		return d
	}
	return fallback
}
