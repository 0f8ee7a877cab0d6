package merges

import (
	"slices"
	"testing"
)

// vocabulary returns the token and rank functions of a list of tokens by
// rank.
func vocabulary(tokens ...string) (token func(uint32) string, rank func(string) (uint32, bool)) {
	token = func(r uint32) string { return tokens[r] }
	rank = func(s string) (uint32, bool) {
		r := slices.Index(tokens, s)
		return uint32(r), r >= 0
	}
	return token, rank
}

// TestBuild works out the merges of a small vocabulary by hand: BPE of a
// token's bytes with the merges below its rank ends in the two tokens of
// its split.
func TestBuild(t *testing.T) {
	tokens := []string{"a", "b", "c", "ab", "bc", "abc", "ca", "bca"}
	token, rank := vocabulary(tokens...)
	tab := Build(len(tokens), token, rank)
	want := [][2]uint32{
		{0, 0}, {1, 1}, {2, 2}, // bytes
		{0, 1}, // ab
		{1, 2}, // bc
		{3, 2}, // abc: a b c merges ab first (rank 3 before bc's 4), then ab+c
		{2, 0}, // ca
		{4, 0}, // bca: b c a merges bc (4) before ca (6), then bc+a
	}
	if !slices.Equal(tab.Split, want) {
		t.Fatalf("splits %v, want %v", tab.Split, want)
	}
	for _, c := range []struct {
		a, b uint32
		want bool
	}{
		{0, 1, false}, // a b merge into ab
		{0, 4, false}, // a bc: a and b merge (3) before b and c (4) did
		{3, 2, false}, // ab c merge into abc
		{2, 0, false}, // c a merge into ca
		{1, 0, true},  // b a: no merge
		{5, 0, true},  // abc a: c and a would merge (6) only after abc (5)
		{6, 1, false}, // ca b: a and b merge (3) before c and a (6) did
		{1, 6, false}, // b ca: b and c merge (4) before c and a (6) did
	} {
		if got := tab.Valid(c.a, c.b); got != c.want {
			t.Errorf("Valid(%q, %q) = %v, want %v", tokens[c.a], tokens[c.b], got, c.want)
		}
	}
	for id, tok := range tokens {
		if !tab.Made(uint32(id), len(tok)) {
			t.Errorf("%q not made", tok)
		}
	}
	// Without ab or bc below it, abc's bytes make three tokens: no merge
	// makes it and it never occurs in an encoding.
	token, rank = vocabulary("a", "b", "c", "abc")
	tab = Build(4, token, rank)
	if tab.Split[3] != [2]uint32{3, 3} || tab.Made(3, 3) {
		t.Errorf("abc with no merges below it: split %v, made %v", tab.Split[3], tab.Made(3, 3))
	}
}

// TestDecode reads back what Encode writes, and refuses a file that does
// not fit the vocabulary.
func TestDecode(t *testing.T) {
	tokens := []string{"a", "b", "c", "ab", "bc", "abc", "ca", "bca"}
	token, rank := vocabulary(tokens...)
	built := Build(len(tokens), token, rank)
	file := string(Encode(built))
	got, ok := Decode(file, len(tokens), token)
	if !ok || !slices.Equal(got.Split, built.Split) {
		t.Fatalf("decoded %v %v, built %v", ok, got, built.Split)
	}
	for a := range uint32(len(tokens)) {
		for b := range uint32(len(tokens)) {
			if got.Valid(a, b) != built.Valid(a, b) {
				t.Errorf("Valid(%q, %q) differs once decoded", tokens[a], tokens[b])
			}
		}
	}
	change := func(at int, v byte) string { b := []byte(file); b[at] = v; return string(b) }
	for name, data := range map[string]string{
		"cut":            file[:len(file)-8],
		"longer":         file + file[:8],
		"empty":          "",
		"wrong bytes":    change(8*5, 4),   // abc as bc + c
		"not below":      change(8*3+4, 5), // ab as a + abc
		"left not below": change(8*6, 7),   // ca as bca + a
	} {
		if _, ok := Decode(data, len(tokens), token); ok {
			t.Errorf("%s: read", name)
		}
	}
}
