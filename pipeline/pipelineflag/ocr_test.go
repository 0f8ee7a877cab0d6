package pipelineflag

import (
	"flag"
	"io"
	"testing"

	"github.com/gochunk/gochunk/pipeline"
)

// --ocr takes a mode or openai:MODEL, and both when given twice.
func TestOCRFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want pipeline.OCRConfig
		bad  bool
	}{
		{args: []string{"--ocr", "always"}, want: pipeline.OCRConfig{Mode: "always"}},
		{args: []string{"--ocr", "openai:gpt-4o-mini"}, want: pipeline.OCRConfig{Engine: "openai:gpt-4o-mini"}},
		{args: []string{"--ocr", "always", "--ocr", "openai:qwen2.5-vl", "--ocr-model", "hf:org/ocr/v4@main"}, want: pipeline.OCRConfig{Mode: "always", Engine: "openai:qwen2.5-vl", Model: "hf:org/ocr/v4@main"}},
		{args: []string{"--ocr", "always,openai:gpt-4o"}, want: pipeline.OCRConfig{Mode: "always", Engine: "openai:gpt-4o"}},
		{args: []string{"--ocr", "openai:"}, bad: true},
		{args: []string{"--ocr", "always,"}, bad: true},
		{args: []string{"--ocr", "tesseract"}, bad: true},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var got pipeline.OCRConfig
		RegisterOCR(fs, &got)
		err := fs.Parse(c.args)
		if (err != nil) != c.bad || !c.bad && got != c.want {
			t.Errorf("%v: %+v %v, want %+v (an error: %v)", c.args, got, err, c.want, c.bad)
		}
		// Its value written back gives the same settings (File, serve's
		// /mcp pipeline): the mode and the engine both.
		if !c.bad {
			again := flag.NewFlagSet("again", flag.ContinueOnError)
			var back pipeline.OCRConfig
			RegisterOCR(again, &back)
			if v := fs.Lookup("ocr").Value.String(); v != "" {
				if err := again.Set("ocr", v); err != nil {
					t.Errorf("%v: --ocr %q written back: %v", c.args, v, err)
				}
			}
			if back.Mode != got.Mode || back.Engine != got.Engine {
				t.Errorf("%v: written back as %q, read %+v", c.args, fs.Lookup("ocr").Value, back)
			}
		}
	}
}
