package ocr

import (
	"reflect"
	"testing"
)

// TestDBBoxesReusedLabels finds the same boxes with label memory left
// over from another map as with fresh memory.
func TestDBBoxesReusedLabels(t *testing.T) {
	const w, h = 64, 32
	prob := make([]float32, w*h)
	for y := 8; y < 14; y++ { // two lines of text
		for x := 4; x < 40; x++ {
			prob[y*w+x] = 0.9
		}
	}
	for y := 20; y < 26; y++ {
		for x := 10; x < 60; x++ {
			prob[y*w+x] = 0.9
		}
	}
	p := dbParams{thresh: DefaultThreshold, boxThresh: DefaultBoxThreshold, unclip: DefaultUnclip, minSize: 3, maxCandidates: 100}
	want := dbBoxes(prob, w, h, p, make([]int32, w*h))
	if len(want) != 2 {
		t.Fatalf("%d boxes, want 2: %v", len(want), want)
	}
	used := make([]int32, w*h)
	for i := range used {
		used[i] = int32(i%7 + 1)
	}
	if got := dbBoxes(prob, w, h, p, used); !reflect.DeepEqual(got, want) {
		t.Errorf("with used label memory: %v, want %v", got, want)
	}
}
