package printable

import (
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

func TestEscapesEachClass(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"ESC of an ANSI sequence", "a\x1b[31mred\x1b[0m", `a\x1b[31mred\x1b[0m`},
		{"OSC 8 hyperlink", "\x1b]8;;http://x\x07y", `\x1b]8;;http://x\ay`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`},
		{"backspace and form feed", "a\bb\fc\vd", `a\bb\fc\vd`},
		{"lone CR", "safe\rrm -rf /", `safe\rrm -rf /`},
		{"C1 control CSI", "a\u009b2Jb", `a\u009b2Jb`},
		{"NEL", "a\u0085b", `a\u0085b`},
		{"RLO", "invoice\u202efdp.exe", `invoice\u202efdp.exe`},
		{"every embedding and override", "\u202a\u202b\u202c\u202d\u202e", `\u202a\u202b\u202c\u202d\u202e`},
		{"isolates", "\u2066\u2067\u2068\u2069", `\u2066\u2067\u2068\u2069`},
		{"marks", "\u200e\u200f\u061c", `\u200e\u200f\u061c`},
		{"zero-width", "r\u200bm\u200c-\u200d\u2060rf\ufeff", `r\u200bm\u200c-\u200d\u2060rf\ufeff`},
		{"Mongolian vowel separator", "a\u180eb", `a\u180eb`},
		{"soft hyphen", "ex\u00adec", `ex\u00adec`},
		{"line and paragraph separators", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"tag characters", "ok\U000e0001\U000e0069\U000e007f", `ok\U000e0001\U000e0069\U000e007f`},
		{"unassigned tag", "\U000e0000\U000e0010", `\U000e0000\U000e0010`},
		{"not UTF-8", "a\xffb\xc3", `a\xffb\xc3`},
		{"a lone joiner after a letter", "a\u200d😀", `a\u200d😀`},
		{"a joiner before a letter", "😀\u200da", `😀\u200da`},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("%s: Text(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
		if got := Line(c.in); got != c.want {
			t.Errorf("%s: Line(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
		if !Hidden(c.in) {
			t.Errorf("%s: Hidden(%q) = false", c.name, c.in)
		}
	}
}

func TestLinesAndTabs(t *testing.T) {
	in := "a\tb\nc\r\nd\re"
	if got, want := Text(in), "a\tb\nc\r\nd\\re"; got != want {
		t.Errorf("Text(%q) = %q, want %q", in, got, want)
	}
	if got, want := Line(in), `a\tb\nc\r\nd\re`; got != want {
		t.Errorf("Line(%q) = %q, want %q", in, got, want)
	}
	if Hidden("a\tb\nc\r\n") {
		t.Error("Hidden reports newlines, tabs and CRLF")
	}
	if got := Text("end\r"); got != `end\r` {
		t.Errorf("Text of a CR at the end = %q", got)
	}
}

func TestValidTextUntouched(t *testing.T) {
	for _, s := range []string{
		"",
		"plain ASCII: rm -rf build/ && echo 'done' | tee \\path\\to",
		"emoji 😀🎉 and a sequence 👩‍💻 👨‍👩‍👧 ❤️‍🔥 👍🏽‍♂️",
		"flags 🇫🇷🇯🇵",
		"CJK 漢字かなカナ 한국어",
		"combining marks: e\u0301 a\u0308 (café, naïve), Devanagari नमस्ते",
		"Arabic مرحبا بالعالم and Hebrew שלום עולם",
		"variation selectors ︎☺\ufe0e ☺\ufe0f 葛\U000e0100",
		"symbols → ≠ € © ™ · — … ”quotes“ and a no-break\u00a0space",
		`a literal \u202e written by someone`,
	} {
		if got := Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
		if got := Line(s); got != s {
			t.Errorf("Line(%q) = %q, want it unchanged", s, got)
		}
		if Hidden(s) {
			t.Errorf("Hidden(%q) = true", s)
		}
	}
}

// TestResultIsVisible checks, over every character up to the tags, that
// what Line returns holds no character it would escape again and is
// valid UTF-8: an escape is never itself hidden.
func TestResultIsVisible(t *testing.T) {
	var b strings.Builder
	for r := rune(0); r <= 0xe01ef; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		b.WriteRune(r)
	}
	b.WriteString("\xff\xfe")
	out := Line(b.String())
	if !utf8.ValidString(out) {
		t.Fatal("Line's result is not UTF-8")
	}
	if again := Line(out); again != out {
		t.Fatal("Line's result holds characters Line escapes")
	}
}

// TestUnchangedIsSameString: text with nothing to escape comes back as
// the same string, not a copy (acp keeps a text's JSON encoding only while
// the text is the one encoded).
func TestUnchangedIsSameString(t *testing.T) {
	s := strings.Repeat("output line\n", 100)
	if got := Text(s); unsafe.StringData(got) != unsafe.StringData(s) {
		t.Fatal("Text copied text it did not change")
	}
}

func BenchmarkTextASCII(b *testing.B) {
	s := strings.Repeat("func main() { fmt.Println(\"hello, world\") }\n", 2000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Text(s)
	}
}

func BenchmarkTextCJK(b *testing.B) {
	s := strings.Repeat("漢字かなカナ 한국어 مرحبا\n", 2000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Text(s)
	}
}
