package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/hfhub"
	"github.com/gochunk/gochunk/internal/ocrtest"
	"github.com/gochunk/gochunk/internal/onnxtest"
	"github.com/gochunk/gochunk/ocr"
)

const hubCommit = "89abcdef0123456789abcdef0123456789abcdef"

// ocrHub serves a repository org/ocr on loopback as the Hugging Face hub
// does: its file list (/api/models/org/ocr/revision/main) and its files
// (HEAD with the commit, ETag and size; GET the bytes). It counts the
// requests.
func ocrHub(t *testing.T, files map[string][]byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path == "/api/models/org/ocr/revision/main" {
			var sib []map[string]string
			for _, name := range slices.Sorted(maps.Keys(files)) {
				sib = append(sib, map[string]string{"rfilename": name})
			}
			json.NewEncoder(w).Encode(map[string]any{"id": "org/ocr", "sha": hubCommit, "siblings": sib})
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, "/org/ocr/resolve/main/")
		body, found := files[name]
		if !ok || !found {
			http.Error(w, "Entry not found", http.StatusNotFound)
			return
		}
		sum := sha256.Sum256(body)
		w.Header().Set("X-Repo-Commit", hubCommit)
		w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(body)))
		if r.Method != http.MethodHead {
			w.Write(body)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

func TestParseOCRHub(t *testing.T) {
	for in, want := range map[string]ocrHubModel{
		"hf:org/ocr":             {repo: "org/ocr"},
		"hf:org/ocr/v4":          {repo: "org/ocr", dir: "v4"},
		"hf:org/ocr/models/v4@x": {repo: "org/ocr", dir: "models/v4", rev: "x"},
	} {
		got, ok, err := parseOCRHub(in)
		if err != nil || !ok || got != want || got.String() != in {
			t.Errorf("%s: %+v %v %v (%s)", in, got, ok, err, got.String())
		}
	}
	if _, ok, err := parseOCRHub("/models/ocr"); ok || err != nil {
		t.Errorf("a directory: %v %v", ok, err)
	}
	for _, bad := range []string{"hf:ocr", "hf:org/ocr/../x", "hf:org/ocr/v4/", "hf:org/ocr@a/b", "hf:"} {
		if _, _, err := parseOCRHub(bad); !errors.Is(err, gochunk.ErrConfig) {
			t.Errorf("%s: %v, want a configuration error", bad, err)
		}
	}
	if _, err := New(context.Background(), Config{OCR: OCRConfig{Model: "hf:nope"}}, Options{}); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("New with hf:nope: %v", err)
	}
}

// The model files of a hub folder are chosen by the directory rules,
// downloaded once into the hub cache, then found there offline; a folder
// with two detectors or without a recogniser is refused, naming them.
func TestDownloadOCRModel(t *testing.T) {
	srv, requests := ocrHub(t, map[string][]byte{
		"README.md":                              []byte("# OCR"),
		"det_a.onnx":                             []byte("a"),
		"det_b.onnx":                             []byte("b"),
		"v4/ch_PP-OCRv4_det_infer.onnx":          []byte("detector"),
		"v4/ch_PP-OCRv4_rec_infer.onnx":          []byte("recogniser"),
		"v4/ch_ppocr_mobile_v2.0_cls_infer.onnx": []byte("classifier"),
		"v4/ppocr_keys_v1.txt":                   []byte("a\nb\n"),
		"v4/extra/other_det.onnx":                []byte("not this one"),
		"npm/assets/det.onnx":                    []byte("d"),
		"npm/assets/rec.onnx":                    []byte("r"),
		"npm/assets/en_dict.txt":                 []byte("a\n"),
		"norec/det.onnx":                         []byte("d"),
		"norec/keys.txt":                         []byte("k"),
	})
	t.Setenv("HF_ENDPOINT", srv.URL)
	t.Setenv("HF_HUB_OFFLINE", "")
	cache := t.TempDir()
	opt := hfhub.Options{CacheDir: cache}
	ctx := context.Background()
	dir, err := downloadOCRModel(ctx, ocrHubModel{repo: "org/ocr", dir: "v4"}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "models--org--ocr", "snapshots", hubCommit, "v4"); dir != want {
		t.Errorf("dir %s, want %s", dir, want)
	}
	m, err := ocr.FindModels(dir)
	if err != nil || filepath.Base(m.Classifier) != "ch_ppocr_mobile_v2.0_cls_infer.onnx" {
		t.Fatalf("%+v %v", m, err)
	}
	if b, _ := os.ReadFile(m.Detector); string(b) != "detector" {
		t.Errorf("detector holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "extra")); err == nil {
		t.Error("a subfolder's file was downloaded")
	}
	// Offline: from the cache, no request.
	before := requests.Load()
	again, err := downloadOCRModel(ctx, ocrHubModel{repo: "org/ocr", dir: "v4"}, hfhub.Options{CacheDir: cache, Offline: true})
	if err != nil || again != dir || requests.Load() != before {
		t.Errorf("offline: %s %v, %d requests", again, err, requests.Load()-before)
	}
	if _, err := downloadOCRModel(ctx, ocrHubModel{repo: "org/ocr", dir: "npm"}, hfhub.Options{CacheDir: cache, Offline: true}); !errors.Is(err, hfhub.ErrOffline) {
		t.Errorf("offline, not cached: %v", err)
	}
	// npm's layout: the files in assets/.
	if d, err := downloadOCRModel(ctx, ocrHubModel{repo: "org/ocr", dir: "npm"}, opt); err != nil || filepath.Base(d) != "assets" {
		t.Errorf("assets: %s %v", d, err)
	}
	for _, c := range []struct{ dir, want string }{{"", "det_a.onnx, det_b.onnx"}, {"norec", "lacks a recogniser"}, {"nothing", "lacks a detector"}} {
		_, err := downloadOCRModel(ctx, ocrHubModel{repo: "org/ocr", dir: c.dir}, opt)
		if !errors.Is(err, ocr.ErrModel) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("folder %q: %v, want %q", c.dir, err, c.want)
		}
	}
	// The hub unreachable: the cached model serves, with a warning.
	srv.Close()
	var warned string
	if d, err := downloadOCRModel(ctx, ocrHubModel{repo: "org/ocr", dir: "v4"}, hfhub.Options{CacheDir: cache, Warn: func(s string) { warned = s }}); err != nil || d != dir || !strings.Contains(warned, "from the cache") {
		t.Errorf("unreachable hub: %s %v, warning %q", d, err, warned)
	}
}

// TestOCRModelFromHub: --ocr-model hf:org/ocr serves npm's PP-OCR models
// from a loopback hub; the pipeline downloads them into the hub cache
// and reads a scan with them.
func TestOCRModelFromHub(t *testing.T) {
	models := ocrtest.Models(t)
	lib := onnxtest.Library(t)
	files := map[string][]byte{}
	for _, name := range []string{"ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx", "ppocr_keys_v1.txt"} {
		b, err := os.ReadFile(filepath.Join(models, "assets", name))
		if err != nil {
			t.Skipf("skipping: %v", err)
		}
		files["assets/"+name] = b
	}
	srv, _ := ocrHub(t, files)
	t.Setenv("HF_ENDPOINT", srv.URL)
	t.Setenv("HF_HUB_OFFLINE", "")
	pngData, _ := scans(t)
	cfg := Config{OCR: OCRConfig{Model: "hf:org/ocr"}}
	cfg.Embedder.ONNXLibrary, cfg.Embedder.CacheDir = lib, t.TempDir()
	ctx := context.Background()
	p, err := New(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.Load(ctx, Source{File: pngData, FileName: "scan.png", ID: "scan.png"})
	if err != nil {
		t.Fatal(err)
	}
	if c := ocrtest.CER(l.Text, strings.Join(ocrLines, " ")); c > 0.02 || l.Metadata["ocr"] != "pp-ocr" {
		t.Errorf("CER %.3f: %q, metadata %v", c, l.Text, l.Metadata)
	}
	if _, err := os.Stat(filepath.Join(cfg.Embedder.CacheDir, "models--org--ocr", "snapshots", hubCommit, "assets", "ppocr_keys_v1.txt")); err != nil {
		t.Errorf("not in the hub cache: %v", err)
	}
}
