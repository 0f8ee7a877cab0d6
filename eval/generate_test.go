package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gochunk/gochunk/llm"
)

// genCorpora are three documents of one fact per paragraph; a fact's
// sentence is unique in the collection. Some facts carry a marker that
// tells the stub model how to misbehave.
func genCorpora() []*Corpus {
	topics := []string{"river", "mountain", "glacier"}
	var out []*Corpus
	for d, topic := range topics {
		var paras []string
		for i := range 12 {
			s := fmt.Sprintf("Fact %d of the %s: the %s number %d is known for property %s%d.", i, topic, topic, i*7+d, strings.Repeat("x", i%3+1), i)
			switch {
			case d == 0 && i == 3:
				s += " GARBAGE"
			case d == 1 && i == 5:
				s += " MISSING"
			case d == 2 && (i == 2 || i == 8):
				s += " SAME"
			case d == 0 && i == 9:
				s += " CURLY “quoted”  words"
			case d == 1 && i == 9:
				s += " OFFTOPIC"
			}
			paras = append(paras, s+" Nothing else is said here about it at all, which pads the paragraph.")
		}
		out = append(out, &Corpus{ID: topic, Text: strings.Join(paras, "\n\n")})
	}
	return out
}

// stubModel answers questions_v1 requests from the window it is shown: a
// question about the first whole fact in it, and that fact's sentence as
// the excerpt, except where a marker says otherwise. The first request for
// a window holding fact 1 gets a 429. It counts the requests per window.
type stubModel struct {
	mu        sync.Mutex
	seen      map[string]int
	total     int
	throttled int
}

func (s *stubModel) serve(t *testing.T) *httptest.Server {
	s.seen = map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		user := req.Messages[len(req.Messages)-1].Content
		window := strings.TrimSuffix(strings.TrimPrefix(user, "<excerpt>\n"), "\n</excerpt>")
		s.mu.Lock()
		s.seen[window]++
		n := s.seen[window]
		s.total++
		s.mu.Unlock()
		if n == 1 && strings.Contains(window, "Fact 1 of") {
			s.mu.Lock()
			s.throttled++
			s.mu.Unlock()
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		i := strings.Index(window, "Fact ")
		if i < 0 || !strings.Contains(window[i:], ".") {
			json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": `{"question": "", "references": []}`}}}})
			return // no whole fact in this window
		}
		j := strings.Index(window[i:], ".") + i + 1
		fact := window[i:j]
		rest := window[j:]
		content := ""
		switch {
		case strings.HasPrefix(rest, " GARBAGE"):
			content = "I cannot answer that in JSON, sorry."
		case strings.HasPrefix(rest, " MISSING"):
			content = `{"question": "What is missing?", "references": ["a sentence the document does not hold"]}`
		case strings.HasPrefix(rest, " SAME"):
			content = `{"question": "Which glacier fact is marked the same?", "references": [` + quote(fact) + `]}`
		case strings.HasPrefix(rest, " OFFTOPIC"):
			content = `{"question": "How do volcanoes erupt under the ocean floor?", "references": [` + quote(fact) + `]}`
		case strings.HasPrefix(rest, " CURLY"):
			// copied with straight quotes and one space: only the
			// approximate match finds it
			content = `{"question": "What words are quoted about the river?", "references": [` + quote(`CURLY "quoted" words`) + `]}`
		default:
			content = `{"question": ` + quote("What is known about "+fact[:strings.Index(fact, ":")]+"?") + `, "references": [` + quote(fact) + `]}`
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": content}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func genModel(t *testing.T, url, cache string) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: url, Model: "stub", CacheDir: cache, JSONMode: true, Retries: 2})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Generate against a scripted model: the questions it keeps have every
// excerpt located exactly in its corpus; the garbage answer, the missing
// excerpt, the question its excerpt does not answer and the duplicate are
// dropped and counted; 429s are retried; and the data set written reads
// back through Load unchanged.
func TestGenerate(t *testing.T) {
	var stub stubModel
	srv := stub.serve(t)
	corpora := genCorpora()
	cfg := GenerateConfig{Questions: 30, Window: 240, Seed: 7, Model: genModel(t, srv.URL+"/v1", "")} // Chroma's filters, the lexical embedder
	qs, st, err := Generate(context.Background(), corpora, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", st)
	if st.Kept != len(qs) || len(qs) == 0 {
		t.Fatalf("kept %d, returned %d", st.Kept, len(qs))
	}
	if st.Garbage < 1 || st.NotFound < 1 || st.Duplicates < 1 || st.Irrelevant < 1 {
		t.Errorf("the misbehaving answers were not all dropped: %+v", st)
	}
	if st.Repaired != 0 {
		t.Errorf("%d excerpts repaired without --approximate", st.Repaired)
	}
	for _, q := range qs {
		if strings.Contains(q.Text, "missing") || strings.Contains(q.Text, "quoted") || strings.Contains(q.Text, "volcanoes") {
			t.Errorf("kept %q", q.Text)
		}
		for _, r := range q.References {
			c := corpora[map[string]int{"river": 0, "mountain": 1, "glacier": 2}[r.Corpus]]
			if got := string([]rune(c.Text)[r.Start:r.End]); got != r.Content || !strings.HasPrefix(got, "Fact ") {
				t.Errorf("%q: reference [%d,%d) of %s holds %q, content %q", q.Text, r.Start, r.End, r.Corpus, got, r.Content)
			}
		}
	}
	same := 0
	for _, q := range qs {
		if strings.Contains(q.Text, "marked the same") {
			same++
		}
	}
	if same > 1 {
		t.Errorf("the duplicate question was kept %d times", same)
	}
	// Every corpus gets its share: a third each of 30.
	per := map[string]int{}
	for _, q := range qs {
		per[q.Corpus()]++
	}
	for _, c := range corpora {
		if per[c.ID] != 10 {
			t.Errorf("%s: %d questions, want its share of 10 (%v)", c.ID, per[c.ID], per)
		}
	}
	if stub.throttled == 0 || stub.total != st.Requests+stub.throttled {
		t.Errorf("%d HTTP requests for %d model requests and %d 429s, want each 429 retried once", stub.total, st.Requests, stub.throttled)
	}

	dir := t.TempDir()
	if err := WriteChroma(dir, corpora, qs); err != nil {
		t.Fatal(err)
	}
	ds, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Questions) != len(qs) || len(ds.Skipped) != 0 {
		t.Fatalf("read back %d questions (%d skipped), wrote %d", len(ds.Questions), len(ds.Skipped), len(qs))
	}
	for i, q := range ds.Questions {
		if q.Text != qs[i].Text || len(q.References) != len(qs[i].References) || q.References[0] != qs[i].References[0] {
			t.Errorf("question %d read back as %+v, wrote %+v", i, q, qs[i])
		}
	}

	// The same seed asks the same windows: the same questions.
	var stub2 stubModel
	srv2 := stub2.serve(t)
	cfg.Model = genModel(t, srv2.URL+"/v1", "")
	qs2, _, err := Generate(context.Background(), corpora, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(qs2) != fmt.Sprint(qs) {
		t.Error("a second run with the same seed gave other questions")
	}
}

// With Approximate, the excerpt copied with straight quotes and one space
// is found (and counted as repaired), its reference holding the text's own
// characters.
func TestGenerateApproximate(t *testing.T) {
	var stub stubModel
	srv := stub.serve(t)
	corpora := genCorpora()[:1]
	qs, st, err := Generate(context.Background(), corpora, GenerateConfig{Questions: 12, Window: 240, Seed: 7, MinRelevance: -1, Approximate: true, Model: genModel(t, srv.URL+"/v1", "")})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, q := range qs {
		if strings.Contains(q.Text, "quoted") {
			found = true
			if q.References[0].Content != "CURLY “quoted”  words" {
				t.Errorf("approximate reference holds %q", q.References[0].Content)
			}
		}
	}
	if !found || st.Repaired != 1 {
		t.Errorf("the approximate excerpt: found %v, %d repaired", found, st.Repaired)
	}
}

// An interrupted run resumes from the model's cache: the second run asks
// the model only what the first did not get, and ends as an uninterrupted
// run does.
func TestGenerateResumes(t *testing.T) {
	corpora := genCorpora()
	cache := t.TempDir()
	var stub stubModel
	srv := stub.serve(t)
	ctx, cancel := context.WithCancel(context.Background())
	rounds := 0
	cfg := GenerateConfig{Questions: 30, Window: 240, Seed: 3, MinRelevance: -1, Model: genModel(t, srv.URL+"/v1", cache),
		Progress: func(GenerateProgress) {
			if rounds++; rounds == 1 {
				cancel() // interrupted after the first round
			}
		}}
	if _, _, err := Generate(ctx, corpora, cfg); err == nil {
		t.Fatal("an interrupted run returned no error")
	}
	first := len(stub.seen)
	cfg.Progress = nil
	cfg.Model = genModel(t, srv.URL+"/v1", cache)
	qs, st, err := Generate(context.Background(), corpora, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Usage.CachedCalls < 1 {
		t.Errorf("the resumed run took nothing from the cache: %+v", st.Usage)
	}
	for w, n := range stub.seen {
		if n > 2 || n == 2 && !strings.Contains(w, "Fact 1 of") {
			t.Errorf("window asked %d times (once, or a 429 and an answer): %.40q", n, w)
		}
	}
	var fresh stubModel
	cfg.Model = genModel(t, fresh.serve(t).URL+"/v1", "")
	want, _, err := Generate(context.Background(), corpora, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(qs) != fmt.Sprint(want) {
		t.Error("the resumed run's questions differ from an uninterrupted run's")
	}
	t.Logf("first run reached %d windows; resumed run: %+v", first, st)
}

// The estimate counts the requests a run makes at least and at most.
func TestEstimateGenerate(t *testing.T) {
	est, err := EstimateGenerate(genCorpora(), GenerateConfig{Questions: 30, Window: 240})
	if err != nil {
		t.Fatal(err)
	}
	if est.MinRequests != 30 || est.MaxRequests < 30 || est.MaxRequests > 90 || est.MinPromptTokens <= 30*100 || est.MaxPromptTokens < est.MinPromptTokens {
		t.Errorf("%+v", est)
	}
}

// Bad settings and no model are refused before any request.
func TestGenerateRefuses(t *testing.T) {
	for _, cfg := range []GenerateConfig{{Window: 10}, {Questions: -1}, {Questions: 10, MaxRequests: 5}} {
		if _, _, err := Generate(context.Background(), genCorpora(), cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	if _, _, err := Generate(context.Background(), genCorpora(), GenerateConfig{}); err == nil || !strings.Contains(err.Error(), "chat model") {
		t.Errorf("no model: %v", err)
	}
}

// LocateExcerpt finds exact excerpts in the window, then in the text, and
// approximate ones only when asked, never across a character.
func TestLocateExcerpt(t *testing.T) {
	text := "Alpha beta.\n\nThe “best”  answer — here.\nAlpha beta."
	cases := []struct {
		ex         string
		approx     bool
		want       string
		exact, ok  bool
		start, end int
	}{
		{"Alpha beta.", false, "Alpha beta.", true, true, 38, len(text)},
		{`The "best" answer - here.`, false, "", false, false, 0, len(text)},
		{`The "best" answer - here.`, true, "The “best”  answer — here.", false, true, 0, len(text)},
		{"  The \"best\"\nanswer ", true, "The “best”  answer", false, true, 0, len(text)},
		{"nowhere", true, "", false, false, 0, len(text)},
	}
	for _, c := range cases {
		s, e, exact, ok := LocateExcerpt(text, c.start, c.end, c.ex, c.approx)
		if ok != c.ok || exact != c.exact || ok && text[s:e] != c.want {
			t.Errorf("%q: [%d,%d) exact %v ok %v, want %q", c.ex, s, e, exact, ok, c.want)
		}
	}
}
