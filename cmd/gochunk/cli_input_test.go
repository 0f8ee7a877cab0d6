package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gochunk chunk --jsonl reads documents one a line, as gochunk-beam
// --jsonl and gochunk index - do: each record's source is its line's id
// and its metadata the line's; a bad line is reported with its number, the
// others are chunked, and the exit status is 1.
func TestChunkJSONLines(t *testing.T) {
	in := writeFile(t, "docs.jsonl", `{"id": "a", "text": "First document. It has two sentences.", "metadata": {"lang": "en", "url": "https://example.com/a"}}

{"id": 7, "text": "Second one."}
not json
{"text": "no id"}
{"id": "x", "text": null}
{"id": "m", "text": "bad metadata", "metadata": [1]}
{"id": "last", "text": "The last one."}
`)
	out, errs, code := runCmd(t, "", "chunk", "--jsonl", in)
	if code != 1 {
		t.Errorf("exit %d, want 1 (bad lines)", code)
	}
	recs := decodeLines(t, out)
	if len(recs) != 3 || recs[0].Source != "a" || recs[1].Source != "7" || recs[2].Source != "last" {
		t.Fatalf("records %+v", recs)
	}
	if md := recs[0].Metadata; md["lang"] != "en" || md["url"] != "https://example.com/a" || recs[1].Metadata != nil {
		t.Errorf("metadata %v, %v", md, recs[1].Metadata)
	}
	for _, want := range []string{"docs.jsonl line 4: not a JSON object", `docs.jsonl line 5: "id" is missing`, `docs.jsonl line 6 (id "x"): "text" is missing`,
		`docs.jsonl line 7 (id "m"): "metadata" must be an object`} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	// Standard input too, and several inputs in order.
	out, _, code = runCmd(t, `{"id": "s", "text": "From standard input."}`+"\n", "chunk", "--jsonl", "-", in)
	if recs := decodeLines(t, out); code != 1 || len(recs) != 4 || recs[0].Source != "s" || recs[3].Source != "last" {
		t.Errorf("stdin then file: exit %d, %+v", code, recs)
	}
	// Without --jsonl a .jsonl file is text, and gochunk says how to read
	// it as documents.
	if _, errs, _ := runCmd(t, "", "chunk", in); !strings.Contains(errs, "give --jsonl") {
		t.Errorf("no hint: %s", errs)
	}
	if _, _, code := runCmd(t, "", "chunk", "--jsonl", "--output", "offsets", in); code != 2 {
		t.Errorf("--jsonl --output offsets: exit %d, want 2", code)
	}
}

// tinyTokenizer is a WordPiece tokenizer.json.
const tinyTokenizer = `{"normalizer":{"type":"BertNormalizer","lowercase":true},"pre_tokenizer":{"type":"BertPreTokenizer"},
"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","vocab":{"[UNK]":0,"the":1,"harbour":2,"keeps":3,"boats":4}}}`

// --tokenizer hf:NAME is a hub model's tokenizer.json, found in the hub
// cache as embedders' models are (no network here: the cache is filled by
// the test, downloads are off); one not cached is a clear error saying
// what to download and where; a local path still works.
func TestTokenizerFromHubCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("HF_HUB_CACHE", cache)
	t.Setenv("HF_HUB_OFFLINE", "1")
	commit := "0123456789abcdef0123456789abcdef01234567"
	for _, repo := range []string{"bert-base-uncased", "org/tiny"} {
		snap := filepath.Join(cache, "models--"+strings.ReplaceAll(repo, "/", "--"), "snapshots", commit)
		os.MkdirAll(snap, 0o755)
		os.WriteFile(filepath.Join(snap, "tokenizer.json"), []byte(tinyTokenizer), 0o644)
		os.MkdirAll(filepath.Join(filepath.Dir(filepath.Dir(snap)), "refs"), 0o755)
		os.WriteFile(filepath.Join(filepath.Dir(filepath.Dir(snap)), "refs", "main"), []byte(commit), 0o644)
	}
	local := writeFile(t, "tokenizer.json", tinyTokenizer)
	text := "The harbour keeps the boats. The harbour keeps the boats."
	for _, tok := range []string{"hf:bert-base-uncased", "hf:org/tiny", "hf:org/tiny@main", "hf:" + local, "hf:" + filepath.Dir(local)} {
		out, errs, code := runCmd(t, text, "chunk", "--tokenizer", tok, "--chunker", "token", "--size", "5", "--overlap", "0", "-")
		recs := decodeLines(t, out)
		if code != 0 || len(recs) < 2 || recs[0].TokenCount != 5 {
			t.Errorf("%s: exit %d, %d records: %s", tok, code, len(recs), errs)
		}
	}
	_, errs, code := runCmd(t, text, "chunk", "--tokenizer", "hf:google-bert/bert-base-cased", "-")
	if code != 2 || !strings.Contains(errs, "not in the hub cache ("+cache+")") || !strings.Contains(errs, "huggingface-cli download google-bert/bert-base-cased tokenizer.json") {
		t.Errorf("not cached: exit %d: %s", code, errs)
	}
	// The file form of --config takes it too.
	cfg := writeFile(t, "c.json", `{"chunker": "token", "size": 5, "overlap": 0, "tokenizer": "hf:bert-base-uncased"}`)
	if out, errs, code := runCmd(t, text, "chunk", "--config", cfg, "-"); code != 0 || decodeLines(t, out)[0].TokenCount != 5 {
		t.Errorf("--config with hf:NAME: exit %d: %s", code, errs)
	}
}

// brokenReader is standard input that breaks after its first bytes.
type brokenReader struct{ r io.Reader }

func (b brokenReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		return n, errors.New("connection reset")
	}
	return n, err
}

// An input of --jsonl that breaks part way: the documents read before are
// written, the error is named, the inputs after it are chunked (exit 1).
func TestChunkJSONLinesInputBreaks(t *testing.T) {
	after := writeFile(t, "after.jsonl", `{"id": "after", "text": "The file after."}`+"\n")
	var out, errs bytes.Buffer
	stdin := brokenReader{strings.NewReader(`{"id": "one", "text": "First."}` + "\n" + `{"id": "two", "text": "Second."}` + "\n")}
	code := run([]string{"chunk", "--jsonl", "-", after}, stdin, &out, &errs)
	var sources []string
	for _, r := range decodeLines(t, out.String()) {
		sources = append(sources, r.Source)
	}
	if code != 1 || strings.Join(sources, ",") != "one,two,after" || !strings.Contains(errs.String(), "read -: connection reset") {
		t.Errorf("exit %d, records of %q, stderr %s", code, sources, errs.String())
	}
}
