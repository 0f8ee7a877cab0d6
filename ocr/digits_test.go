package ocr

import "testing"

func TestDigitLike(t *testing.T) {
	for w, want := range map[string]string{"2o12": "2012", "14,ooo.": "14,000.", "(o.91": "(0.91", "2oo1": "2001", "l0%": "10%",
		"lo": "lo", "Ill": "Ill", "2012": "2012", "room1": "room1", "A4": "A4"} {
		got := w
		if digitLike(w) {
			got = digitsFor.Replace(w)
		}
		if got != want {
			t.Errorf("%q -> %q, want %q", w, got, want)
		}
	}
}
