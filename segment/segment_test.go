package segment

import (
	"slices"
	"testing"
	"unicode/utf8"
)

func texts(text string, rs []Range) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = text[r.Start:r.End]
	}
	return out
}

func checkPartition(t *testing.T, text string, rs []Range) {
	t.Helper()
	pos := 0
	for _, r := range rs {
		if r.Start != pos || r.End <= r.Start {
			t.Fatalf("ranges %v do not partition %q", rs, text)
		}
		pos = r.End
	}
	if pos != len(text) {
		t.Fatalf("ranges %v end at %d, text has %d bytes", rs, pos, len(text))
	}
}

func TestSentences(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"simple", "One. Two! Three? Four", []string{"One. ", "Two! ", "Three? ", "Four"}},
		{"abbreviations", "Dr. Smith met Mr. Jones. They talked.", []string{"Dr. Smith met Mr. Jones. ", "They talked."}},
		{"e.g. lowercase", "Use tools, e.g. hammers. Then stop.", []string{"Use tools, e.g. hammers. ", "Then stop."}},
		{"decimals", "Pi is 3.14 roughly. Next.", []string{"Pi is 3.14 roughly. ", "Next."}},
		{"ellipsis continues", "Wait... and then. Done.", []string{"Wait... and then. ", "Done."}},
		{"ellipsis ends", "Wait... Then go.", []string{"Wait... ", "Then go."}},
		{"initials", "J. R. R. Tolkien wrote. Yes.", []string{"J. R. R. Tolkien wrote. ", "Yes."}},
		{"quotes", `He said "Stop." She left.`, []string{`He said "Stop." `, "She left."}},
		{"cjk", "日本語です。中文句子！Next", []string{"日本語です。", "中文句子！", "Next"}},
		{"newlines", "line one\nline two\n\npara", []string{"line one\n", "line two\n\n", "para"}},
		{"leading space", "  \n  Hello. World.", []string{"  \n  Hello. ", "World."}},
		{"url", "See example.com/a.b for more. Ok.", []string{"See example.com/a.b for more. ", "Ok."}},
		{"unicode ellipsis", "So… Maybe.", []string{"So… ", "Maybe."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := Sentences(tc.text)
			checkPartition(t, tc.text, rs)
			if got := texts(tc.text, rs); !slices.Equal(got, tc.want) {
				t.Errorf("Sentences(%q)\n got %q\nwant %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestSentenceOptions(t *testing.T) {
	text := "a b\nc d. E f"
	if got := texts(text, SentenceSplitter{KeepLines: true}.Split(text)); !slices.Equal(got, []string{"a b\nc d. ", "E f"}) {
		t.Errorf("KeepLines: %q", got)
	}
	text = "Hi. There! You? me"
	got := texts(text, SentenceSplitter{Delimiters: []string{". ", "! ", "? "}}.Split(text))
	if !slices.Equal(got, []string{"Hi. ", "There! ", "You? ", "me"}) {
		t.Errorf("Delimiters: %q", got)
	}
	text = "Dr. Who. Ok."
	got = texts(text, SentenceSplitter{Abbreviations: []string{}}.Split(text))
	if !slices.Equal(got, []string{"Dr. ", "Who. ", "Ok."}) {
		t.Errorf("no abbreviations: %q", got)
	}
}

func TestParagraphsLines(t *testing.T) {
	text := "a\nb\n\n\nc\n  \nd"
	p := Paragraphs(text)
	checkPartition(t, text, p)
	if got := texts(text, p); !slices.Equal(got, []string{"a\nb\n\n\n", "c\n  \n", "d"}) {
		t.Errorf("Paragraphs: %q", got)
	}
	l := Lines(text)
	checkPartition(t, text, l)
	if len(l) != 7 {
		t.Errorf("Lines: %q", texts(text, l))
	}
	if Sentences("") != nil || Paragraphs("") != nil || Lines("") != nil {
		t.Error("empty text must give no ranges")
	}
}

func FuzzSegment(f *testing.F) {
	for _, s := range []string{"Dr. A. B? c… D", "x\n\n\ny", "。！？", "3.14.15. A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		checkPartition(t, text, Sentences(text))
		checkPartition(t, text, SentenceSplitter{KeepLines: true, Delimiters: []string{"\n", ". "}}.Split(text))
		checkPartition(t, text, Paragraphs(text))
		checkPartition(t, text, Lines(text))
	})
}

// The full stops of other scripts end sentences: Devanagari, Arabic,
// Armenian, Ethiopic, Myanmar, Khmer, and the CJK ones beyond 。！？.
func TestSentenceEndsOtherScripts(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"मैं घर जा रहा हूँ। तुम कहाँ हो? सब ठीक है॥ अंत", []string{"मैं घर जा रहा हूँ। ", "तुम कहाँ हो? ", "सब ठीक है॥ ", "अंत"}},
		{"كيف حالك؟ أنا بخير۔ شكرا", []string{"كيف حالك؟ ", "أنا بخير۔ ", "شكرا"}},
		{"Բարեւ։ Ինչպես ես։", []string{"Բարեւ։ ", "Ինչպես ես։"}},
		{"ሰላም ነው። እንዴት ነህ፧ ደህና", []string{"ሰላም ነው። ", "እንዴት ነህ፧ ", "ደህና"}},
		{"今日は晴れ．明日は雨︒そして﹒終わり", []string{"今日は晴れ．", "明日は雨︒", "そして﹒", "終わり"}},
		{"မင်္ဂလာပါ။ နေကောင်းလား။", []string{"မင်္ဂလာပါ။ ", "နေကောင်းလား။"}},
		{"សួស្តី។ សុខសប្បាយទេ។", []string{"សួស្តី។ ", "សុខសប្បាយទេ។"}},
	} {
		var got []string
		for _, r := range (SentenceSplitter{}).Split(tc.text) {
			got = append(got, tc.text[r.Start:r.End])
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.text, got, tc.want)
		}
	}
}

// All yields Split's ranges one at a time, with the rules and with
// delimiters, and stops when asked.
func TestAllYieldsSplit(t *testing.T) {
	text := "Dr. Smith went home. It rained!\n\nThe end? Yes… “Quoted.” 3.14 is pi. 東京。大阪。"
	for _, s := range []SentenceSplitter{{}, {KeepLines: true}, {Delimiters: []string{". ", "\n"}}} {
		want := s.Split(text)
		var got []Range
		for r := range s.All(text) {
			got = append(got, r)
		}
		if !slices.Equal(got, want) || len(want) < 3 {
			t.Errorf("%+v: All gives %v, Split %v", s, got, want)
		}
		n := 0
		for range s.All(text) {
			if n++; n == 2 {
				break
			}
		}
		if n != 2 {
			t.Errorf("%+v: stopped after %d", s, n)
		}
	}
	for range (SentenceSplitter{}).All("") {
		t.Error("a range of the empty text")
	}
}
