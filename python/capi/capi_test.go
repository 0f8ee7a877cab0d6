//go:build cgo

package main

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/pipeline"
)

// TestRunSliced: the records of a text given in memory leave their text
// out ("sliced"), and the text is the given one between start_rune and
// end_rune: put back, each record is gochunk chunk's, byte for byte.
func TestRunSliced(t *testing.T) {
	text := strings.Repeat("Ünïcödé 😀 text, with a few sentences. And \"quotes\"\n\n", 60)
	for _, tc := range []struct{ name, params string }{
		{"recursive", `{"size": 50}`},
		{"sentence", `{"size": 40, "tokenizer": "cl100k_base"}`},
		{"markdown", `{"size": 60, "parents": 300, "context": "headings"}`},
	} {
		pl, err := newPipeline(context.Background(), tc.name, tc.params)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c := &chunker{pl: pl}
		src := pipeline.Source{Text: text}
		b, err := c.run([]pipeline.Source{src}, 1)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Docs []struct {
				Records []map[string]any `json:"records"`
				Sliced  bool             `json:"sliced"`
			} `json:"docs"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, b)
		}
		res, err := pl.Run(context.Background(), gochunk.Document{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		lines, err := res.AppendJSONL(nil, 0, len(res.Chunks))
		if err != nil {
			t.Fatal(err)
		}
		var want []map[string]any
		for _, l := range strings.Split(strings.TrimSuffix(string(lines), "\n"), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			want = append(want, m)
		}
		if len(got.Docs) != 1 || !got.Docs[0].Sliced {
			t.Fatalf("%s: want one sliced document, got %s", tc.name, b)
		}
		runes := []rune(text)
		recs := got.Docs[0].Records
		for _, r := range recs {
			if _, ok := r["text"]; ok {
				t.Fatalf("%s: a record of one span has its text: %v", tc.name, r)
			}
			r["text"] = string(runes[int(r["start_rune"].(float64)):int(r["end_rune"].(float64))])
		}
		if !reflect.DeepEqual(recs, want) {
			t.Errorf("%s: records differ from gochunk chunk's:\n got %v\nwant %v", tc.name, recs, want)
		}
	}
}

// TestNewPipelineErrors: keys are gochunk chunk --config's; a bad one is
// an error naming what to give.
func TestNewPipelineErrors(t *testing.T) {
	for _, tc := range []struct{ name, params, want string }{
		{"nope", `{}`, `unknown chunker "nope"`},
		{"recursive", `{"size": -3}`, `parameter "size" of recursive`},
		{"semantic", `{"sise": 3}`, `unknown setting "sise": not a parameter of semantic`},
		{"recursive", `{"tokenizer": "nope"}`, `nope`},
		{"recursive", `{"pdf_engine": "nope"}`, `pdf_engine`},
		{"recursive", `{"chunker": "token"}`, `name the chunker as the first argument`},
		{"recursive", `[1]`, `want a JSON object`},
		{"recursive", `{"embedder": {"a": 1}}`, `embedder: want a single value`},
	} {
		_, err := newPipeline(context.Background(), tc.name, tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: got %v, want an error containing %q", tc.name, tc.params, err, tc.want)
		}
	}
	// Settings by flag name, with _ or -, set the pipeline as the flags do.
	pl, err := newPipeline(context.Background(), "token", `{"size": 64, "tokenizer": "cl100k_base", "invalid-utf8": "repair", "parents": 512}`)
	if err != nil {
		t.Fatal(err)
	}
	cfg := pl.Config()
	if cfg.InvalidUTF8 != gochunk.Repair || cfg.Parents != 512 || pl.Counter().Name() != "cl100k_base" {
		t.Errorf("configuration %+v, unit %s", cfg, pl.Counter().Name())
	}
	if !errors.Is(func() error { _, err := newPipeline(context.Background(), "nope", ""); return err }(), gochunk.ErrConfig) {
		t.Error("an unknown chunker is not a configuration error")
	}
}
