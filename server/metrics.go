package server

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	inflight  prometheus.Gauge
	rejected  prometheus.Counter
	documents *prometheus.CounterVec
	chunks    prometheus.Counter
	tokens    prometheus.Counter
	embedCall prometheus.Counter
	embedText prometheus.Counter
	embedErr  prometheus.Counter
	errors    *prometheus.CounterVec
	panics    prometheus.Counter
	abandoned prometheus.Counter
	refused   *prometheus.CounterVec

	llmCalls, llmPrompt, llmCompletion, llmSeconds prometheus.Counter
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gochunk_http_requests_total", Help: "HTTP requests by path and status code."}, []string{"path", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gochunk_http_request_duration_seconds", Help: "HTTP request latency by path.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"path"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "gochunk_http_inflight_requests", Help: "Requests being served."}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_http_rejected_total", Help: "Requests refused with 429 because the concurrency limit was reached."}),
		documents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gochunk_documents_total", Help: "Documents processed, by endpoint and outcome."}, []string{"endpoint", "outcome"}),
		chunks:    prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_chunks_total", Help: "Chunks produced."}),
		tokens:    prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_tokens_total", Help: "Tokens in the chunks produced."}),
		embedCall: prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_embedder_calls_total", Help: "Calls to the embedder."}),
		embedText: prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_embedder_texts_total", Help: "Texts sent to the embedder."}),
		embedErr:  prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_embedder_errors_total", Help: "Embedder calls that failed."}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gochunk_errors_total", Help: "Error answers by kind."}, []string{"kind"}),
		panics:    prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_panics_total", Help: "Panics recovered into 500 answers (or into a document's error)."}),
		abandoned: prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_http_timeouts_total", Help: "Requests answered 504 at their deadline while their work was still stopping."}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gochunk_memory_refused_total",
			Help: "Requests refused for memory: too_large (413) or busy (503)."}, []string{"reason"}),

		llmCalls:      prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_llm_calls_total", Help: "Language model calls of the LLM chunkers (cached answers included)."}),
		llmPrompt:     prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_llm_prompt_tokens_total", Help: "Prompt tokens the model reported."}),
		llmCompletion: prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_llm_completion_tokens_total", Help: "Completion tokens the model reported."}),
		llmSeconds:    prometheus.NewCounter(prometheus.CounterOpts{Name: "gochunk_llm_seconds_total", Help: "Time spent waiting for the model."}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.inflight, m.rejected, m.documents, m.chunks, m.tokens,
		m.embedCall, m.embedText, m.embedErr, m.errors, m.panics, m.abandoned, m.refused, m.llmCalls, m.llmPrompt, m.llmCompletion, m.llmSeconds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
