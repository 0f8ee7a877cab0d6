package textenc_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/textenc"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// Paragraphs written for this test, in the languages whose legacy
// encodings files still come in.
var (
	french = strings.Repeat("Le comité a décidé, après une longue réunion, que l'été prochain la bibliothèque "+
		"serait ouverte à tous les élèves. Les enfants étaient ravis ; leurs parents, un peu moins, "+
		"car il faudra payer les frais d'entrée. « C'est déjà ça », a déclaré le maire. ", 4)
	german = strings.Repeat("Die Größe der Straße überrascht die Besucher, die aus München gekommen sind. "+
		"Für die Kinder gibt es Äpfel, Bücher und Spiele; die Erwachsenen trinken Kaffee im Café "+
		"gegenüber dem Rathaus. Übermorgen fährt der Zug früh um sieben Uhr ab. ", 4)
	russian = strings.Repeat("Вчера вечером мы долго гуляли по городу и разговаривали о книгах, которые "+
		"прочитали этим летом. Погода была тёплой, на улицах было много людей, а в парке играла музыка. ", 3)
	japaneseText = strings.Repeat("昨日の夜、私たちは町を長い間散歩して、この夏に読んだ本について話しました。"+
		"天気は暖かく、通りにはたくさんの人がいて、公園では音楽が流れていました。", 3)
	chineseS = strings.Repeat("昨天晚上，我们在城里散步了很长时间，谈论了今年夏天读过的书。"+
		"天气很暖和，街上有很多人，公园里还有音乐。", 3)
	chineseT = strings.Repeat("昨天晚上，我們在城裡散步了很長時間，談論了今年夏天讀過的書。"+
		"天氣很暖和，街上有很多人，公園裡還有音樂。", 3)
	koreanText = strings.Repeat("어제 저녁에 우리는 오랫동안 시내를 산책하면서 이번 여름에 읽은 책에 대해 "+
		"이야기했습니다. 날씨가 따뜻했고 거리에는 사람들이 많았으며 공원에서는 음악이 흘러나왔습니다. ", 3)
)

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		text string
		enc  encoding.Encoding
		want string
	}{
		{french, charmap.Windows1252, "windows-1252"},
		{german, charmap.ISO8859_1, "windows-1252"},
		{russian, charmap.Windows1251, "windows-1251"},
		{russian, charmap.KOI8R, "koi8-r"},
		{japaneseText, japanese.ShiftJIS, "shift_jis"},
		{japaneseText, japanese.EUCJP, "euc-jp"},
		{chineseS, simplifiedchinese.GBK, "gbk"},
		{chineseT, traditionalchinese.Big5, "big5"},
		{koreanText, korean.EUCKR, "euc-kr"},
		{strings.Repeat("Plain ASCII text before any letter of another alphabet. ", 2000) + french, charmap.Windows1252, "windows-1252"},
	} {
		data, err := tc.enc.NewEncoder().Bytes([]byte(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		name, enc, ok := textenc.Detect(data)
		if !ok {
			t.Errorf("%s text: not recognised", tc.want)
			continue
		}
		got, err := textenc.Decode(data, enc)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.text {
			t.Errorf("%s text read as %s: %.60q…", tc.want, name, got)
		}
	}
}

func TestDetectRefuses(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(r.IntN(256))
	}
	utf16, _ := unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder().Bytes([]byte(french))
	for name, data := range map[string][]byte{
		"UTF-8":                           []byte(french),
		"UTF-8 with a stray Latin-1 byte": []byte(german + "caf\xe9 " + german),
		"UTF-8 damaged past the sample":   []byte(strings.Repeat(german, 300) + "caf\xe9"),
		"UTF-16 without a mark":           utf16,
		"random bytes":                    noise,
	} {
		if enc, _, ok := textenc.Detect(data); ok {
			t.Errorf("%s: recognised as %s, want nothing", name, enc)
		}
	}
}

// A short CJK text (a CSV of a few names, too few characters for ICU's
// statistics) is told by its bytes: Shift_JIS and Big5, whose common
// characters no other encoding shares; a Latin-1 line stays refused or
// read as Latin-1, never as CJK.
func TestDetectShortCJK(t *testing.T) {
	csv := "名前,年齢,住所\r\n佐藤太郎,30,東京\r\n三木英子,25,大阪\r\n髙橋淳,35,名古屋\r\n"
	for _, tc := range []struct {
		name string
		enc  encoding.Encoding
		text string
	}{
		{"shift_jis", japanese.ShiftJIS, csv},
		{"big5", traditionalchinese.Big5, "姓名,年齡,地址\r\n陳大文,30,台北\r\n林小明,25,高雄\r\n"},
	} {
		data, err := tc.enc.NewEncoder().Bytes([]byte(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		name, enc, ok := textenc.Detect(data)
		if !ok || name != tc.name {
			t.Errorf("%s: recognised as %q (%v), want %s", tc.name, name, ok, tc.name)
			continue
		}
		if got, _ := textenc.Decode(data, enc); got != tc.text {
			t.Errorf("%s: decoded %q", tc.name, got)
		}
	}
	for _, western := range []string{
		"Grüße aus Köln, café crème à la carte, déjà vu.\n",
		// Curly apostrophes between letters: each reads as a two-byte
		// Shift_JIS character (0x92 'B'), but alone, never in a run.
		"O’Brien, O’Neil, D’Arcy, O’Hara\n",
		"l’eau, d’accord, l’homme, qu’il, s’il\n",
	} {
		data, _ := charmap.Windows1252.NewEncoder().Bytes([]byte(western))
		if name, _, ok := textenc.Detect(data); ok && name != "windows-1252" {
			t.Errorf("%q in Windows-1252 recognised as %s", western, name)
		}
	}
	// Katakana words, whose trail bytes are mostly ASCII letters, are
	// runs and stay recognised.
	kana := "データベース,システム\r\nカタカナ,テキスト\r\n"
	data, _ := japanese.ShiftJIS.NewEncoder().Bytes([]byte(kana))
	if name, _, ok := textenc.Detect(data); ok && name != "shift_jis" {
		t.Errorf("katakana in Shift_JIS recognised as %s", name)
	}
}
