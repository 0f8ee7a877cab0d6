// Package llm is a client for OpenAI-compatible chat completion endpoints
// (OpenAI, Ollama, vLLM, LM Studio, llama.cpp's server), made for chunking:
// JSON or schema-constrained answers, retries with backoff on 429 and 5xx,
// bounded concurrency, a cache of answers so re-runs are free and
// deterministic, and accounting of tokens and latency.
package llm

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gochunk/gochunk"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gochunk/gochunk/internal/apiclient"
	"github.com/gochunk/gochunk/internal/diskcache"
)

// Config configures a Client.
type Config struct {
	// BaseURL is the API base URL as OpenAI clients take it, e.g.
	// "http://localhost:11434/v1" for Ollama; empty means
	// $OPENAI_BASE_URL, else OpenAI's (https://api.openai.com/v1).
	BaseURL string
	// Model is the model name the server knows.
	Model string
	// APIKey is sent as a bearer token; empty means $OPENAI_API_KEY (and
	// none when that is empty, as local servers want).
	APIKey string
	// Timeout bounds one request; 0 means 120 s.
	Timeout time.Duration
	// Retries after a 429, a 5xx or a network error; 0 means 4, negative
	// none.
	Retries int
	// Concurrency bounds requests in flight; 0 means 4.
	Concurrency int
	// RequestsPerMinute spaces the requests sent (retries included) so
	// that no more than this many start in any minute, for APIs with rate
	// limits; 0 means no spacing (429s are still retried, after the
	// server's Retry-After).
	RequestsPerMinute int
	// Temperature of sampling, sent only when set: reasoning models
	// refuse any but their default. Answers are cached, so re-runs are
	// identical either way.
	Temperature *float64
	// MaxTokens bounds an answer, sent as max_completion_tokens (servers
	// that only know max_tokens are asked again with it); 0 means 2048.
	MaxTokens int
	// JSONMode asks for a JSON object (response_format json_object); with a
	// schema in the request, a json_schema response format is sent
	// instead. Servers that refuse response_format are retried without it.
	JSONMode bool
	// CacheDir, when set, keeps answers on disk; answers are always cached
	// in memory for the client's life. A corrupt answer file is removed and
	// the model asked again.
	CacheDir string
	// CacheBytes bounds CacheDir (least recently used answers removed
	// first); 0 means unbounded.
	CacheBytes int64
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
}

// Message is one chat message: its text and, for vision models, the
// images sent after the text.
type Message struct {
	Role    string
	Content string
	// Images are sent after Content as image content parts (OpenAI's
	// "image_url" parts holding a base64 data URL); a message without
	// images is sent with its text as the content, as every server takes
	// it.
	Images []Image
}

// Image is an image of a message: its encoded bytes, their media type
// (image/png, image/jpeg) and the detail a vision model looks at it in
// (OpenAI's "low", "high" or "auto"; empty sends none, the server's
// default).
type Image struct {
	MIME   string
	Data   []byte
	Detail string
}

// DataURL returns the image as a data URL (data:MIME;base64,...).
func (im Image) DataURL() string {
	return "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

// MarshalJSON writes the message as the chat completions API takes it:
// the content a string, or a list of a text part and image parts when the
// message has images.
func (m Message) MarshalJSON() ([]byte, error) {
	if len(m.Images) == 0 {
		return json.Marshal(struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}{m.Role, m.Content})
	}
	type imageURL struct {
		URL    string `json:"url"`
		Detail string `json:"detail,omitempty"`
	}
	type part struct {
		Type     string    `json:"type"`
		Text     string    `json:"text,omitempty"`
		ImageURL *imageURL `json:"image_url,omitempty"`
	}
	parts := make([]part, 0, len(m.Images)+1)
	if m.Content != "" {
		parts = append(parts, part{Type: "text", Text: m.Content})
	}
	for _, im := range m.Images {
		parts = append(parts, part{Type: "image_url", ImageURL: &imageURL{URL: im.DataURL(), Detail: im.Detail}})
	}
	return json.Marshal(struct {
		Role    string `json:"role"`
		Content []part `json:"content"`
	}{m.Role, parts})
}

// Request is one chat completion.
type Request struct {
	Messages []Message
	// Schema, when set, is the JSON schema the answer must follow.
	Schema json.RawMessage
	// SchemaName names the schema for servers that want one.
	SchemaName string
}

// Response is a model's answer with its accounting.
type Response struct {
	Content          string
	PromptTokens     int
	CompletionTokens int
	// CachedPromptTokens are the prompt tokens the server took from its
	// prompt cache (OpenAI's prompt_tokens_details.cached_tokens; 0 where
	// a server does not say).
	CachedPromptTokens int
	Latency            time.Duration
	Cached             bool
	// Attempts is the number of HTTP requests the answer took (retries
	// after 429s, 5xx and network errors included); 0 for a cached one.
	Attempts int
	// FinishReason is why the model stopped: "stop", or "length" where
	// the answer reached MaxTokens and was cut ("" where a server does
	// not say).
	FinishReason string `json:",omitempty"`
	// Refusal is the model's refusal to answer, where it gave one
	// instead of an answer (OpenAI's message.refusal).
	Refusal string `json:",omitempty"`
}

// Usage sums the accounting of several responses (the chunks' typed
// gochunk.Stats.LLM).
type Usage = gochunk.LLMUsage

// Usage returns the response's accounting, to merge into a Usage.
func (r Response) Usage() Usage {
	u := Usage{Calls: 1, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens, CachedPromptTokens: r.CachedPromptTokens,
		LatencyMS: float64(r.Latency.Microseconds()) / 1000, HTTPAttempts: r.Attempts}
	if r.Cached {
		u.CachedCalls = 1
	}
	return u
}

// ErrNoModel reports a chunker that needs a chat model given none (a nil
// *Client): configure the model's name (and its server's URL).
var ErrNoModel = errors.New("the LLM chunkers need a chat model, and none is configured")

// ErrUnreachable reports an endpoint that could not be reached or kept
// failing after the retries.
var ErrUnreachable = errors.New("model endpoint unavailable")

// Client talks to one model. It is safe for concurrent use.
type Client struct {
	cfg         Config
	sem         chan struct{}
	mu          sync.Mutex
	cache       map[string]Response
	disk        *diskcache.Dir // answers on disk, nil without CacheDir
	noFmt       bool           // the server refused response_format
	oldMaxParam bool           // the server wants max_tokens, not max_completion_tokens
	nextSlot    time.Time      // when the next request may start (RequestsPerMinute)
}

// New returns a client; it makes no request until Complete.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("llm: no model")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = cmp.Or(os.Getenv("OPENAI_BASE_URL"), "https://api.openai.com/v1")
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 120 * time.Second
	}
	if cfg.Retries == 0 {
		cfg.Retries = 4
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 2048
	}
	if cfg.Client == nil {
		cfg.Client = http.DefaultClient
	}
	c := &Client{cfg: cfg, sem: make(chan struct{}, cfg.Concurrency), cache: map[string]Response{}}
	if cfg.CacheDir != "" {
		c.disk = diskcache.Open(cfg.CacheDir, cfg.CacheBytes, nil)
	}
	return c, nil
}

// Model returns the model name.
func (c *Client) Model() string { return c.cfg.Model }

// Concurrency returns the requests the client sends at once (Config's,
// 4 by default): what callers reading several things at once may have
// in flight.
func (c *Client) Concurrency() int { return c.cfg.Concurrency }

// ID names the endpoint and model, for cache keys of callers.
func (c *Client) ID() string { return c.cfg.BaseURL + "|" + c.cfg.Model }

func (c *Client) key(req Request) string {
	h := sha256.New()
	temp := "default"
	if t := c.cfg.Temperature; t != nil {
		temp = fmt.Sprint(*t)
	}
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", c.cfg.BaseURL, c.cfg.Model, temp)
	for _, m := range req.Messages {
		fmt.Fprintf(h, "%s\x00%s\x00", m.Role, m.Content)
		// An image is keyed by its bytes' hash (and how it is sent):
		// another page is another answer.
		for _, im := range m.Images {
			sum := sha256.Sum256(im.Data)
			fmt.Fprintf(h, "image\x00%s\x00%s\x00%x\x00", im.MIME, im.Detail, sum)
		}
	}
	h.Write(req.Schema)
	return hex.EncodeToString(h.Sum(nil))
}

// Complete returns the model's answer to req, from the cache when the
// same model was asked the same thing before.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	key := c.key(req)
	c.mu.Lock()
	if r, ok := c.cache[key]; ok {
		c.mu.Unlock()
		r.Cached, r.Latency, r.Attempts = true, 0, 0
		return r, nil
	}
	c.mu.Unlock()
	if c.disk != nil {
		if b, ok := c.disk.Get(key + ".json"); ok {
			var r Response
			if json.Unmarshal(b, &r) == nil {
				c.remember(key, r)
				r.Cached, r.Latency, r.Attempts = true, 0, 0
				return r, nil
			}
		}
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return Response{}, ctx.Err()
	}
	defer func() { <-c.sem }()
	r, err := c.withRetries(ctx, req)
	if err != nil {
		return Response{}, err
	}
	c.remember(key, r)
	if c.disk != nil {
		b, _ := json.Marshal(r)
		c.disk.Put(key+".json", b)
	}
	return r, nil
}

func (c *Client) remember(key string, r Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cache) >= 100_000 {
		c.cache = map[string]Response{}
	}
	c.cache[key] = r
}

func (c *Client) withRetries(ctx context.Context, req Request) (Response, error) {
	var resp Response
	attempts := 0
	err := apiclient.Backoff{Retries: c.cfg.Retries, Base: 250 * time.Millisecond, Max: 20 * time.Second}.Do(ctx, func() error {
		var err error
		attempts++
		resp, err = c.once(ctx, req)
		return err
	})
	resp.Attempts = attempts
	var r apiclient.Retryable
	switch {
	case err == nil:
		return resp, nil
	case errors.As(err, &r) && ctx.Err() == nil:
		return Response{}, fmt.Errorf("%w: llm: %w", ErrUnreachable, err)
	}
	return Response{}, fmt.Errorf("llm: %w", err)
}

type chatRequest struct {
	Model               string    `json:"model"`
	Messages            []Message `json:"messages"`
	Temperature         *float64  `json:"temperature,omitempty"`
	MaxCompletionTokens int       `json:"max_completion_tokens,omitempty"`
	MaxTokens           int       `json:"max_tokens,omitempty"`
	ResponseFormat      any       `json:"response_format,omitempty"`
	Seed                int       `json:"seed"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

// wait holds a request until its slot under RequestsPerMinute.
func (c *Client) wait(ctx context.Context) error {
	if c.cfg.RequestsPerMinute <= 0 {
		return nil
	}
	slot := c.reserveSlot(time.Now())
	select {
	case <-time.After(time.Until(slot)):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// reserveSlot returns when a request asking at now may start, and takes
// that slot: slots are a minute/RequestsPerMinute apart.
func (c *Client) reserveSlot(now time.Time) time.Time {
	gap := time.Minute / time.Duration(c.cfg.RequestsPerMinute)
	c.mu.Lock()
	defer c.mu.Unlock()
	slot := c.nextSlot
	if slot.Before(now) {
		slot = now
	}
	c.nextSlot = slot.Add(gap)
	return slot
}

func (c *Client) once(ctx context.Context, req Request) (Response, error) {
	if err := c.wait(ctx); err != nil {
		return Response{}, err
	}
	body := chatRequest{Model: c.cfg.Model, Messages: req.Messages, Temperature: c.cfg.Temperature, MaxCompletionTokens: c.cfg.MaxTokens}
	c.mu.Lock()
	noFmt := c.noFmt
	if c.oldMaxParam {
		body.MaxCompletionTokens, body.MaxTokens = 0, c.cfg.MaxTokens
	}
	c.mu.Unlock()
	if !noFmt {
		switch {
		case req.Schema != nil:
			name := req.SchemaName
			if name == "" {
				name = "answer"
			}
			body.ResponseFormat = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": name, "schema": req.Schema, "strict": true}}
		case c.cfg.JSONMode:
			body.ResponseFormat = map[string]any{"type": "json_object"}
		}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return Response{}, err
	}
	start := time.Now()
	data, err := apiclient.Post(ctx, c.cfg.Client, c.cfg.BaseURL+"/chat/completions", c.cfg.APIKey, b, c.cfg.Timeout, 64<<20)
	var se *apiclient.StatusError
	if errors.As(err, &se) && se.Code == http.StatusBadRequest && body.ResponseFormat != nil && strings.Contains(strings.ToLower(se.Body), "response_format") {
		c.mu.Lock()
		c.noFmt = true // retry plainly: the prompt asks for JSON too
		c.mu.Unlock()
		return Response{}, apiclient.Retryable{Err: err, Wait: time.Millisecond}
	}
	if errors.As(err, &se) && se.Code == http.StatusBadRequest && body.MaxCompletionTokens > 0 && strings.Contains(se.Body, "max_completion_tokens") {
		c.mu.Lock()
		c.oldMaxParam = true // an older server: ask again with max_tokens
		c.mu.Unlock()
		return Response{}, apiclient.Retryable{Err: err, Wait: time.Millisecond}
	}
	if err != nil {
		return Response{}, err
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil || len(cr.Choices) == 0 {
		return Response{}, fmt.Errorf("the answer is not a chat completion: %.200s", data)
	}
	ch := cr.Choices[0]
	return Response{Content: ch.Message.Content, PromptTokens: cr.Usage.PromptTokens,
		CompletionTokens: cr.Usage.CompletionTokens, CachedPromptTokens: cr.Usage.PromptTokensDetails.CachedTokens, Latency: time.Since(start),
		FinishReason: ch.FinishReason, Refusal: ch.Message.Refusal}, nil
}

// ParseJSON decodes the first JSON object in a model's answer into v,
// tolerating code fences and prose around it.
func ParseJSON(content string, v any) error {
	s := strings.TrimSpace(content)
	s = strings.TrimPrefix(s, "```json")
	s = strings.TrimPrefix(s, "```")
	s = strings.TrimSuffix(s, "```")
	start := strings.IndexByte(s, '{')
	end := strings.LastIndexByte(s, '}')
	if start < 0 || end < start {
		return fmt.Errorf("no JSON object in the answer %.120q", content)
	}
	if err := json.Unmarshal([]byte(s[start:end+1]), v); err != nil {
		return fmt.Errorf("the answer is not the JSON asked for: %v", err)
	}
	return nil
}
