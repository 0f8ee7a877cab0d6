package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/gochunk/gochunk/api"
	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/internal/onnxtest"
)

// A page read by OCR is reserved in the server's memory budget while it
// is read (layout.OCRPageMemory, 828 MiB for a 200-dpi Letter page): a
// server of 512 MiB refuses the scan (413, naming the reservation) before
// reading it, and serves clients after; one of 6 GiB reads it (200).
// Before, OCR's memory was not in the budget: the 512 MiB server read it.
func TestBudgetCountsOCRPages(t *testing.T) {
	lines := []string{"A scanned page read within the memory budget."}
	var buf bytes.Buffer
	if err := png.Encode(&buf, ocrtest.Draw(t, 1700, 2200, ocrtest.Lines(200, 300, 30, lines...)...)); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"documents": []map[string]any{{"id": "scan", "file_base64": base64.StdEncoding.EncodeToString(buf.Bytes()), "file_name": "scan.png"}}})
	models, lib := ocrtest.Models(t), onnxtest.Library(t)
	for _, c := range []struct {
		memory int64
		status int
	}{{512 << 20, 413}, {6 << 30, 200}} {
		_, ts := newTest(t, func(cfg *Config) {
			cfg.MaxMemory = c.memory
			cfg.RequestTimeout = 2 * time.Minute
			cfg.Pipeline.OCR.Model = models
			cfg.Pipeline.Embedder.ONNXLibrary = lib
		})
		code, b, _ := post(t, ts.URL+"/v1/chunk", string(body))
		if code != c.status {
			t.Fatalf("budget %d MiB: %d, want %d: %.400s", c.memory>>20, code, c.status, b)
		}
		if code == 413 {
			var e api.ErrorBody
			if json.Unmarshal(b, &e) != nil || e.Error.Type != "over_memory_budget" || !strings.Contains(e.Error.Message, "OCRPageMemory") {
				t.Errorf("budget %d MiB: %s", c.memory>>20, b)
			}
			healthyAfter(t, ts.URL, "an OCR page over the budget")
			continue
		}
		var resp api.ChunkResponse
		if json.Unmarshal(b, &resp) != nil || len(resp.Documents) != 1 || len(resp.Documents[0].Chunks) == 0 || ocrtest.CER(resp.Documents[0].Chunks[0].Text, lines[0]) > 0.05 {
			t.Errorf("budget %d MiB: %.400s", c.memory>>20, b)
		}
	}
}
