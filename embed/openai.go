package embed

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gochunk/gochunk/internal/apiclient"
	"github.com/gochunk/gochunk/tokenize"
	"github.com/gochunk/gochunk/vec"
)

// OpenAIConfig configures the OpenAI-compatible embeddings client.
type OpenAIConfig struct {
	// BaseURL is the API's base URL as OpenAI clients take it, e.g.
	// "https://api.openai.com/v1" or "http://localhost:11434/v1" for
	// Ollama; empty means $OPENAI_BASE_URL, else OpenAI's.
	BaseURL string
	// APIKey is sent as a bearer token; empty means $OPENAI_API_KEY (and
	// no key at all when that is empty too, as local servers want).
	APIKey string
	// Model is the model name the API knows.
	Model string
	// Dimensions, when positive, is sent as "dimensions" and every vector
	// must have that length.
	Dimensions int
	// MaxBatchTokens bounds the tokens (cl100k_base) of one request; 0
	// means 8192.
	MaxBatchTokens int
	// MaxBatchInputs bounds the texts of one request; 0 means 256.
	MaxBatchInputs int
	// MaxTokens is the model's input limit, the special tokens it adds
	// included; 0 means the known one (LookupModel), else 8191. A longer
	// text is split into pieces that fit, whose vectors are averaged
	// (weighted by their token counts) and normalised, never cut.
	MaxTokens int
	// Tokenizer is the model's own tokenizer, which texts are counted
	// and split in; nil means cl100k_base, OpenAI's, taken as an
	// estimate for other models (the embedder then has no tokenizer of
	// its own: see Tokenizer).
	Tokenizer tokenize.Encoder
	// SpecialTokens is how many tokens the model adds to every input
	// (2 for BERT's [CLS] and [SEP]), counted against MaxTokens.
	SpecialTokens int
	// Timeout bounds one request; 0 means 60 s.
	Timeout time.Duration
	// Retries is how many times a request that failed with 429, a 5xx
	// status or a network error is retried, with exponential backoff
	// (honouring Retry-After); 0 means 5, negative means none.
	Retries int
	// Concurrency bounds parallel requests; 0 means 4.
	Concurrency int
	// Notice, when set, hears a line while a request waits long on a slow
	// endpoint (after 10 s, then every 30 s).
	Notice func(string)
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
}

// OpenAILimit returns the input limit of an embedding model served
// through an OpenAI-compatible API: the table's (see OpenAIModels), else
// 8191, OpenAI's. A text over it is split into pieces whose vectors are
// averaged, never cut.
func OpenAILimit(model string) int {
	if c, ok := LookupModel(model); ok {
		return c.Limit
	}
	return 8191
}

// OpenAI embeds texts through any OpenAI-compatible /v1/embeddings
// endpoint: OpenAI, Ollama, vLLM, Text Embeddings Inference, LM Studio,
// and gochunk's own server.
type OpenAI struct {
	cfg     OpenAIConfig
	counter tokenize.Encoder
	own     bool // counter is the model's own tokenizer
	limit   int  // the most tokens of counter a text sent whole has
	dim     atomic.Int64
	calls   atomic.Int64
}

// NewOpenAI returns a client; it makes no request until Embed.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("openai embedder: no model")
	}
	cfg.BaseURL = cmp.Or(cfg.BaseURL, os.Getenv("OPENAI_BASE_URL"), "https://api.openai.com/v1")
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	if cfg.MaxBatchTokens <= 0 {
		cfg.MaxBatchTokens = 8192
	}
	if cfg.MaxBatchInputs <= 0 {
		cfg.MaxBatchInputs = 256
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = OpenAILimit(cfg.Model)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Retries == 0 {
		cfg.Retries = 5
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.Client == nil {
		cfg.Client = http.DefaultClient
	}
	o := &OpenAI{cfg: cfg, counter: cfg.Tokenizer, own: cfg.Tokenizer != nil, limit: cfg.MaxTokens}
	if o.own {
		o.limit = max(1, cfg.MaxTokens-cfg.SpecialTokens)
	} else {
		counter, err := tokenize.NewTikToken("cl100k_base")
		if err != nil {
			return nil, err
		}
		o.counter = counter
	}
	o.dim.Store(int64(cfg.Dimensions))
	return o, nil
}

// Dim returns the configured dimensions, or the length of the vectors the
// API returned so far (0 before the first answer).
func (o *OpenAI) Dim() int { return int(o.dim.Load()) }

// MaxTokens returns the model's input limit, special tokens included.
func (o *OpenAI) MaxTokens() int { return o.cfg.MaxTokens }

// Tokenizer returns the model's own tokenizer, nil when it is not known
// (texts are then counted in cl100k_base, an estimate).
func (o *OpenAI) Tokenizer() tokenize.Counter {
	if !o.own {
		return nil
	}
	return o.counter
}

// ChunkLimit returns the most tokens of the model's own tokenizer a text
// may have to be sent whole: MaxTokens less the special tokens.
func (o *OpenAI) ChunkLimit() int { return o.limit }

// ModelID names the endpoint, model and dimensions.
func (o *OpenAI) ModelID() string {
	return fmt.Sprintf("openai:%s:%s:%d", o.cfg.BaseURL, o.cfg.Model, o.cfg.Dimensions)
}

// Requests returns how many HTTP requests were made (retries included).
func (o *OpenAI) Requests() int64 { return o.calls.Load() }

// piece is one input sent to the API: part (or all) of text t.
type piece struct {
	text   string
	owner  int
	tokens int
}

// Embed returns the vectors of texts, batching them by the token and input
// budgets and sending batches in parallel.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var pieces []piece
	split := make([]bool, len(texts)) // texts sent in pieces
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			continue // empty text: zero vector, the API would refuse it
		}
		n := o.counter.Count(t)
		if n <= o.limit {
			pieces = append(pieces, piece{t, i, n})
			continue
		}
		split[i] = true
		for _, p := range o.splitLong(t) {
			pieces = append(pieces, piece{p, i, o.counter.Count(p)})
		}
	}
	// Batches by budget.
	var batches [][]piece
	var cur []piece
	curTokens := 0
	for _, p := range pieces {
		if len(cur) > 0 && (curTokens+p.tokens > o.cfg.MaxBatchTokens || len(cur) == o.cfg.MaxBatchInputs) {
			batches = append(batches, cur)
			cur, curTokens = nil, 0
		}
		cur = append(cur, p)
		curTokens += p.tokens
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}
	results := make([][][]float32, len(batches))
	sem := make(chan struct{}, o.cfg.Concurrency)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for bi, b := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			inputs := make([]string, len(b))
			for i, p := range b {
				inputs[i] = p.text
			}
			vs, err := o.request(ctx, inputs)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				mu.Unlock()
				return
			}
			results[bi] = vs
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("openai embedding: %w", err)
	}
	dim := o.Dim()
	out := make([][]float32, len(texts))
	weights := make([]float32, len(texts))
	for bi, b := range batches {
		for j, p := range b {
			v := results[bi][j]
			if out[p.owner] == nil {
				out[p.owner] = make([]float32, dim)
			}
			w := float32(max(p.tokens, 1))
			for k, x := range v {
				out[p.owner][k] += w * x
			}
			weights[p.owner] += w
		}
	}
	for i := range out {
		if out[i] == nil {
			out[i] = make([]float32, dim)
			continue
		}
		for k := range out[i] {
			out[i][k] /= weights[i]
		}
		if split[i] {
			vec.Normalize(out[i])
		}
	}
	return out, nil
}

// splitLong cuts text into pieces of at most the limit's tokens at token
// boundaries that are character boundaries. A piece is counted again on
// its own (a word cut between its pieces may count differently alone)
// and cut further while it is over.
func (o *OpenAI) splitLong(text string) []string {
	return o.split(text, o.limit, nil)
}

func (o *OpenAI) split(text string, budget int, out []string) []string {
	ends := o.counter.AppendTokenEnds(nil, text)
	start, n := 0, 0
	for i, e := range ends {
		n++
		atBoundary := e == len(text) || (text[e]&0xC0) != 0x80
		if (n >= budget || i == len(ends)-1) && atBoundary && e > start {
			out = o.fitPart(text, start, e, out)
			start, n = e, 0
		}
	}
	if start < len(text) {
		out = o.fitPart(text, start, len(text), out)
	}
	return out
}

// fitPart fits text[start:end]; a part that is the whole text (no token
// end inside it falls on a character boundary) is kept as it is, since
// cutting it again would find the same part without end.
func (o *OpenAI) fitPart(text string, start, end int, out []string) []string {
	if start == 0 && end == len(text) {
		return append(out, text)
	}
	return o.fit(text[start:end], out)
}

// fit appends piece, or its parts when it counts over the limit alone.
func (o *OpenAI) fit(piece string, out []string) []string {
	n := o.counter.Count(piece)
	if n <= o.limit || len(piece) < 8 {
		return append(out, piece)
	}
	return o.split(piece, max(1, o.limit-(n-o.limit)-1), out)
}

type embeddingsRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type embeddingsResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// request sends one batch, with retries.
func (o *OpenAI) request(ctx context.Context, inputs []string) ([][]float32, error) {
	body, err := json.Marshal(embeddingsRequest{Model: o.cfg.Model, Input: inputs, EncodingFormat: "float", Dimensions: o.cfg.Dimensions})
	if err != nil {
		return nil, err
	}
	if o.cfg.Notice != nil {
		done := make(chan struct{})
		defer close(done)
		go func() {
			start, wait := time.Now(), time.NewTimer(10*time.Second)
			defer wait.Stop()
			for {
				select {
				case <-done:
					return
				case <-wait.C:
					o.cfg.Notice(fmt.Sprintf("waiting %s for %s at %s to embed %d texts", time.Since(start).Round(time.Second), o.cfg.Model, o.cfg.BaseURL, len(inputs)))
					wait.Reset(30 * time.Second)
				}
			}
		}()
	}
	var vs [][]float32
	err = apiclient.Backoff{Retries: o.cfg.Retries, Base: 500 * time.Millisecond, Max: 30 * time.Second}.Do(ctx, func() error {
		var err error
		vs, err = o.once(ctx, body, len(inputs))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("openai embedding: %w", err)
	}
	return vs, nil
}

// once makes one request and checks the answer.
func (o *OpenAI) once(ctx context.Context, body []byte, n int) ([][]float32, error) {
	o.calls.Add(1)
	data, err := apiclient.Post(ctx, o.cfg.Client, o.cfg.BaseURL+"/embeddings", o.cfg.APIKey, body, o.cfg.Timeout, 1<<30)
	if err != nil {
		return nil, err
	}
	var parsed embeddingsResponse
	if err := json.Unmarshal(data, &parsed); err != nil {
		return nil, fmt.Errorf("bad response: %w", err)
	}
	if len(parsed.Data) != n {
		return nil, fmt.Errorf("%w: got %d for %d inputs", ErrCount, len(parsed.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range parsed.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("bad or repeated index %d in response", d.Index)
		}
		out[d.Index] = d.Embedding
	}
	want := o.Dim()
	for i, v := range out {
		if want == 0 {
			want = len(v)
			o.dim.CompareAndSwap(0, int64(want))
			want = o.Dim()
		}
		if len(v) != want || len(v) == 0 {
			return nil, fmt.Errorf("%w: vector %d has %d numbers, want %d", ErrDimension, i, len(v), want)
		}
		if !vec.Valid(v) {
			return nil, fmt.Errorf("vector %d holds NaN or infinite numbers", i)
		}
	}
	return out, nil
}
