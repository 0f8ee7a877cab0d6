package eval

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gochunk/gochunk/embed"
	"github.com/gochunk/gochunk/llm"
	"github.com/gochunk/gochunk/vec"
)

var passageRe = regexp.MustCompile(`(?s)<\|start_passage_\d+\|>(.*?)<\|end_passage_\d+\|>`)

// judgeStub is a chat server on loopback that plays a judge by rules a
// test can follow: a passage is useful when it holds the reference answer;
// claims are sentences, supported when a passage holds them; the answer is
// the first passage holding the question's last word ("I do not know."
// otherwise); the questions of an answer are fixed. It answers each
// prompt of judge_*_v1 and answer_v1, as JSON, or garbage when asked to.
func judgeStub(t *testing.T, garbage string) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Messages []llm.Message `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		sys, user := req.Messages[0].Content, req.Messages[1].Content
		var passages []string
		for _, m := range passageRe.FindAllStringSubmatch(user, -1) {
			passages = append(passages, strings.TrimSpace(m[1]))
		}
		after := func(label string) string {
			s := user[strings.Index(user, label)+len(label):]
			if i := strings.Index(s, "\n"); i >= 0 {
				s = s[:i]
			}
			return strings.TrimSpace(s)
		}
		var ans any
		switch {
		case garbage != "":
			ans = garbage
		case strings.Contains(sys, "You judge retrieved passages"):
			ref := after("Reference answer:")
			var useful []bool
			for _, p := range passages {
				useful = append(useful, strings.Contains(p, ref))
			}
			ans = map[string]any{"useful": useful}
		case strings.Contains(sys, "You check statements"):
			var claims []map[string]any
			for _, c := range strings.SplitAfter(after("Text to check:"), ". ") {
				c = strings.TrimSpace(c)
				ok := false
				for _, p := range passages {
					ok = ok || strings.Contains(p, c)
				}
				claims = append(claims, map[string]any{"claim": c, "supported": ok})
			}
			ans = map[string]any{"claims": claims}
		case strings.Contains(sys, "You answer questions"):
			q := after("Question:")
			word := strings.ToLower(q[strings.LastIndexByte(q, ' ')+1:])
			a := "I do not know."
			for _, p := range passages {
				if strings.Contains(strings.ToLower(p), word) {
					a = p
					break
				}
			}
			ans = map[string]any{"answer": a}
		case strings.Contains(sys, "You write the questions"):
			a := after("Answer:")
			ans = map[string]any{"questions": []string{"which animal is the zebra", "what animal has stripes"}, "noncommittal": a == "I do not know."}
		default:
			t.Errorf("unknown prompt %q", sys)
		}
		content, ok := ans.(string)
		if !ok {
			b, _ := json.Marshal(ans)
			content = string(b)
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 10}})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func judgeDataset() *Dataset {
	text := "Apples are red. Bananas are yellow. The zebra has stripes. Grass is green. Sky is blue."
	ref := func(s string) Reference {
		i := strings.Index(text, s)
		return Reference{Corpus: "c", Start: i, End: i + len(s)} // ASCII: bytes are code points
	}
	return &Dataset{Name: "t", Corpora: []*Corpus{{ID: "c", Text: text}}, Questions: []Question{
		{Text: "which animal is the zebra", References: []Reference{ref("The zebra has stripes.")}},
		{Text: "what colour is the sky", References: []Reference{ref("Sky is blue.")}},
	}}
}

func TestJudge(t *testing.T) {
	srv, calls := judgeStub(t, "")
	model, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "judge", JSONMode: true})
	if err != nil {
		t.Fatal(err)
	}
	judge := &Judge{Model: model, PriceInput: 1, PriceOutput: 10}
	opt := Options{K: 3, Judge: judge, NewRetriever: func() Retriever { return fixedRetriever{1, 2, 0} }}
	res, err := Evaluate(context.Background(), judgeDataset(), Config{Name: "x", Chunker: sentenceChunker()}, opt)
	if err != nil {
		t.Fatal(err)
	}
	j := res.Judged
	// The contexts are "Bananas are yellow.", "The zebra has stripes.",
	// "Apples are red.". The zebra question: one useful chunk at rank 2
	// (precision 1/2), its one claim found (recall 1), the answer is the
	// zebra chunk (faithful); the sky question: nothing useful, nothing
	// found, a noncommittal answer ("I do not know." is no passage's).
	lex := embed.NewLexical(embed.LexicalConfig{})
	vs, _ := lex.Embed(context.Background(), []string{"which animal is the zebra", "which animal is the zebra", "what animal has stripes"})
	relevancy := (float64(vec.Cosine(vs[0], vs[1])) + float64(vec.Cosine(vs[0], vs[2]))) / 2
	want := map[string][2]float64{
		"context precision": {j.ContextPrecision.Mean, 0.25},
		"context recall":    {j.ContextRecall.Mean, 0.5},
		"faithfulness":      {j.Faithfulness.Mean, 0.5},
		"answer relevancy":  {j.AnswerRelevancy.Mean, relevancy / 2},
	}
	for name, v := range want {
		if math.Abs(v[0]-v[1]) > 1e-6 {
			t.Errorf("%s = %v, want %v", name, v[0], v[1])
		}
	}
	if j.Questions != 2 || j.Contexts != "retrieved" || j.ContextPrecision.N != 2 || relevancy <= 0.5 || relevancy >= 1 {
		t.Errorf("judged %+v (relevancy of one answer %v)", j, relevancy)
	}
	if got := j.PerQuestion[0].Answer; got != "The zebra has stripes." {
		t.Errorf("answer %q", got)
	}
	// 5 calls per question: context, recall, answer, faithfulness,
	// questions; the zebra answer is its reference, so its faithfulness
	// is asked as its recall was, and comes from the cache.
	if calls.Load() != 9 || j.Usage.Calls != 10 || j.Usage.CachedCalls != 1 || j.Usage.PromptTokens != 1000 ||
		math.Abs(*j.CostUSD-(900*1e-6+90*10e-6)) > 1e-12 || math.Abs(*j.CostUncachedUSD-(1000*1e-6+100*10e-6)) > 1e-12 {
		t.Errorf("%d HTTP calls, usage %+v, cost %v", calls.Load(), j.Usage, *j.CostUSD)
	}
	if _, ok := res.Latency["generation"]; !ok {
		t.Errorf("no generation latency: %v", res.Latency)
	}

	// A rerun asks nothing: every answer comes from the cache, and costs
	// nothing, with the same scores.
	res2, err := Evaluate(context.Background(), judgeDataset(), Config{Name: "x", Chunker: sentenceChunker()}, opt)
	if err != nil {
		t.Fatal(err)
	}
	j2 := res2.Judged
	if calls.Load() != 9 || j2.Usage.CachedCalls != 10 || *j2.CostUSD != 0 || *j2.CostUncachedUSD != *j.CostUncachedUSD ||
		j2.ContextPrecision != j.ContextPrecision || j2.AnswerRelevancy != j.AnswerRelevancy {
		t.Errorf("rerun: %d HTTP calls, %+v", calls.Load(), j2)
	}

	var buf strings.Builder
	if err := (&Report{Configs: []*Result{res}}).WriteTable(&buf); err != nil || !strings.Contains(buf.String(), "0.25 ± 0.35") { // 1.96 × 0.25 / √2: the 95 % interval over 2 questions
		t.Errorf("the table does not give the judged metrics: %v\n%s", err, buf.String())
	}
}

// With a reranker, the judge reads both the retrieved and the reranked
// chunks: the table of reference 001, with and without the reranker.
func TestJudgeWithReranker(t *testing.T) {
	srv, _ := judgeStub(t, "")
	model, _ := llm.New(llm.Config{BaseURL: srv.URL, Model: "judge"})
	rs, _ := rerankStub(t, false, 0)
	rr, _ := NewReranker("api:"+rs.URL, RerankerModels{})
	res, err := Evaluate(context.Background(), judgeDataset(), Config{Name: "x", Chunker: sentenceChunker()},
		Options{K: 3, Judge: &Judge{Model: model}, Reranker: rr, RerankTop: 5, NewRetriever: func() Retriever { return fixedRetriever{1, 2, 0, 3, 4} }})
	if err != nil {
		t.Fatal(err)
	}
	// Reranked, the zebra chunk comes first: precision 1 for the zebra
	// question, 0 for the sky (the stub reranker's match is case-sensitive).
	if res.Judged.ContextPrecision.Mean != 0.25 || res.JudgedReranked == nil || res.JudgedReranked.ContextPrecision.Mean != 0.5 || res.JudgedReranked.Contexts != "reranked" {
		t.Errorf("retrieved %+v, reranked %+v", res.Judged.ContextPrecision, res.JudgedReranked)
	}
	for _, stage := range []string{"end_to_end", "end_to_end_without_rerank", "generation", "end_to_end_with_generation", "end_to_end_without_rerank_with_generation"} {
		if _, ok := res.Latency[stage]; !ok {
			t.Errorf("no latency for %s", stage)
		}
	}
	var buf strings.Builder
	(&Report{Configs: []*Result{res}}).WriteTable(&buf)
	if !strings.Contains(buf.String(), "fixed + api:") || !strings.Contains(buf.String(), "0.50 ± 0.69") {
		t.Errorf("no reranked row:\n%s", buf.String())
	}
	// Both rows have a latency with generation.
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(line, "x ") && strings.HasSuffix(strings.TrimSpace(line), "-") {
			t.Errorf("a row without latency with generation: %q", line)
		}
	}
}

func TestJudgeErrors(t *testing.T) {
	ctx := context.Background()
	d := judgeDataset()
	contexts := [][]string{{"a", "b"}, {"c"}}
	for _, garbage := range []string{"not JSON at all", `{"useful": [true]}`} {
		srv, _ := judgeStub(t, garbage)
		model, _ := llm.New(llm.Config{BaseURL: srv.URL, Model: "judge"})
		_, err := (&Judge{Model: model}).Run(ctx, d, contexts, "retrieved")
		if err == nil || !strings.Contains(err.Error(), "judge_context_v1") || !strings.Contains(err.Error(), "judge question") {
			t.Errorf("%q: %v", garbage, err)
		}
	}
	if _, err := (&Judge{}).Run(ctx, d, contexts, "retrieved"); err == nil || !strings.Contains(err.Error(), "--llm-model") {
		t.Errorf("no model: %v", err)
	}
}

func TestContextPrecision(t *testing.T) {
	for _, c := range []struct {
		useful []bool
		want   float64
	}{
		{[]bool{true, false, true}, (1 + 2.0/3) / 2},
		{[]bool{false, true}, 0.5},
		{[]bool{true, true}, 1},
		{[]bool{false, false}, 0},
		{nil, 0},
	} {
		if got := ContextPrecision(c.useful); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%v: %v, want %v", c.useful, got, c.want)
		}
	}
}

func TestSampleIndexes(t *testing.T) {
	if got := sampleIndexes(10, 3); !slices.Equal(got, []int{0, 3, 6}) {
		t.Error(got)
	}
	if got := sampleIndexes(3, 0); !slices.Equal(got, []int{0, 1, 2}) {
		t.Error(got)
	}
	if got := sampleIndexes(2, 5); !slices.Equal(got, []int{0, 1}) {
		t.Error(got)
	}
}

func TestReferenceText(t *testing.T) {
	d := &Dataset{Corpora: []*Corpus{{ID: "c", Text: "héllo wörld, again"}}}
	q := Question{References: []Reference{{Corpus: "c", Start: 6, End: 11}, {Corpus: "c", Start: 13, End: 18, Content: "AGAIN"}}}
	if got := d.referenceText(q); got != "wörld\n\nAGAIN" {
		t.Errorf("%q", got)
	}
}
