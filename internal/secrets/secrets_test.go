package secrets

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestScrubReplacesRegisteredValues(t *testing.T) {
	t.Cleanup(Reset)
	Reset()
	const key = "sk-ant-api03-Abc_def-123456789"
	Register("ANTHROPIC_API_KEY", key)
	Register("SHORT", "abc") // too short: ignored
	Register("AGAIN", key)   // repeat: the first name stays

	frame, _ := json.Marshal(map[string]string{"text": "env says " + key + " and abc, " + key})
	got := Scrub(frame)
	var decoded map[string]string
	if err := json.Unmarshal(got, &decoded); err != nil {
		t.Fatalf("scrubbed frame is not JSON: %v: %s", err, got)
	}
	want := "env says [REDACTED:ANTHROPIC_API_KEY] and abc, [REDACTED:ANTHROPIC_API_KEY]"
	if decoded["text"] != want {
		t.Errorf("text = %q, want %q", decoded["text"], want)
	}
	if s := ScrubString("x" + key + "y"); s != "x[REDACTED:ANTHROPIC_API_KEY]y" {
		t.Errorf("ScrubString = %q", s)
	}
}

func TestScrubWithoutMatchReturnsInput(t *testing.T) {
	t.Cleanup(Reset)
	Reset()
	Register("K", "0123456789abcdef")
	in := []byte("nothing secret here")
	if out := Scrub(in); &out[0] != &in[0] {
		t.Error("Scrub copied a buffer with no match")
	}
}

func TestWriter(t *testing.T) {
	t.Cleanup(Reset)
	Reset()
	Register("OPENAI_API_KEY", "sk-proj-0123456789")
	var buf bytes.Buffer
	n, err := Writer{W: &buf}.Write([]byte("key=sk-proj-0123456789\n"))
	if err != nil || n != len("key=sk-proj-0123456789\n") {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if buf.String() != "key=[REDACTED:OPENAI_API_KEY]\n" {
		t.Errorf("wrote %q", buf.String())
	}
}

func BenchmarkScrubFrame(b *testing.B) {
	Reset()
	defer Reset()
	Register("ANTHROPIC_API_KEY", "sk-ant-api03-Abc_def-123456789")
	frame := bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"text":"hello"}}`), 3)
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		Scrub(frame)
	}
}

// A value split over pieces at any two points is caught by a Stream, and
// the pieces it returns, joined, are the whole text scrubbed: nothing
// held back is lost or moved. Two values, one the start of the other's
// shape, and text that only looks like a start, are in the mix.
func TestStreamCatchesValuesSplitOverPieces(t *testing.T) {
	t.Cleanup(Reset)
	Reset()
	const key, other = "sk-ant-api03-Abc_def-123456789", "sk-proj-XYZ987654"
	Register("ANTHROPIC_API_KEY", key)
	Register("OPENAI_API_KEY", other)
	whole := "before sk-ant- (not a key) " + key + " middle sk-" + other + " after sk"
	want := ScrubString(whole)
	for i := 0; i <= len(whole); i++ {
		for j := i; j <= len(whole); j++ {
			var st Stream
			var out []string
			for _, piece := range []string{whole[:i], whole[i:j], whole[j:]} {
				out = append(out, st.Write(piece))
			}
			out = append(out, st.Flush())
			got := ""
			for _, o := range out {
				if o != "" && (bytes.Contains([]byte(o), []byte(key)) || bytes.Contains([]byte(o), []byte(other))) {
					t.Fatalf("split at %d, %d: piece %q holds a value", i, j, o)
				}
				got += o
			}
			if got != want {
				t.Fatalf("split at %d, %d: joined %q, want %q", i, j, got, want)
			}
		}
	}
}

// Text that cannot start a value passes at once; only a possible start
// is held, and at most the longest value less one byte.
func TestStreamHoldsOnlyAPossibleStart(t *testing.T) {
	t.Cleanup(Reset)
	Reset()
	const key = "0123456789abcdef"
	Register("K", key)
	var st Stream
	if got := st.Write("plain text"); got != "plain text" {
		t.Errorf("Write = %q, want it all at once", got)
	}
	if got := st.Write("count: 0123"); got != "count: " {
		t.Errorf("Write = %q, want the possible start held", got)
	}
	if got := st.Write("456789abcde"); got != "" {
		t.Errorf("Write = %q, want all of it held (15 bytes of the key)", got)
	}
	if got := st.Write("!"); got != "0123456789abcde!" {
		t.Errorf("Write = %q, want the held text once it cannot be the key", got)
	}
	var empty Stream
	Reset()
	if got := empty.Write("0123"); got != "0123" {
		t.Errorf("Write without values = %q", got)
	}
}
