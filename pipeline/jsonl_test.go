package pipeline

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// ParseJSONLine reads a document line as gochunk chunk --jsonl, gochunk
// index - and gochunk-beam --jsonl take it, and says what is wrong with
// one that is not.
func TestParseJSONLine(t *testing.T) {
	src, err := ParseJSONLine([]byte(`{"id": 9007199254740993, "text": "hi", "metadata": {"lang": "en"}}` + "\r\n"))
	if err != nil || src.ID != "9007199254740993" || src.Text != "hi" || src.Metadata["lang"] != "en" || src.RecordMetadata["lang"] != "en" {
		t.Errorf("number id: %+v %v", src, err)
	}
	if src, err := ParseJSONLine([]byte(`{"id": "a", "text": ""}`)); err != nil || src.ID != "a" || src.Metadata != nil {
		t.Errorf("empty text, no metadata: %+v %v", src, err)
	}
	for line, want := range map[string]string{
		`[1, 2]`:                                    `not a JSON object`,
		`{"text": "x"}`:                             `"id" is missing`,
		`{"id": null, "text": "x"}`:                 `"id" is missing`,
		`{"id": "", "text": "x"}`:                   `"id" is empty`,
		`{"id": true, "text": "x"}`:                 `"id" must be a string or a number`,
		`{"id": {"a": 1}, "text": "x"}`:             `"id" must be a string or a number`,
		`{"id": "a"}`:                               `"text" is missing or null`,
		`{"id": "a", "text": 5}`:                    `"text" must be a string`,
		`{"id": "a", "text": "x", "metadata": "m"}`: `"metadata" must be an object`,
	} {
		if _, err := ParseJSONLine([]byte(line)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

// failAfter is a reader whose input breaks after its first bytes.
type failAfter struct{ r io.Reader }

func (f failAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errors.New("connection reset")
	}
	return n, err
}

// ReadJSONLines numbers the lines (blank ones too), reports a bad line and
// reads on, and ends with the read error of an input that breaks, after
// the documents before it.
func TestReadJSONLines(t *testing.T) {
	in := "{\"id\": 1, \"text\": \"a\"}\n\nbroken\n{\"id\": \"x\"}\n{\"id\": 2, \"text\": \"b\"}\n"
	var ids, bad []string
	err := ReadJSONLines(context.Background(), failAfter{strings.NewReader(in)}, "in.jsonl", func(src Source, err error) error {
		var le *JSONLineError
		switch {
		case errors.As(err, &le):
			bad = append(bad, le.Error())
		case err != nil:
			t.Fatal(err)
		default:
			ids = append(ids, src.ID)
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "read in.jsonl: connection reset") {
		t.Errorf("read error: %v", err)
	}
	if strings.Join(ids, ",") != "1,2" || len(bad) != 2 || !strings.HasPrefix(bad[0], "in.jsonl line 3: ") || !strings.HasPrefix(bad[1], `in.jsonl line 4 (id "x"): `) {
		t.Errorf("documents %q, bad lines %q", ids, bad)
	}
}
