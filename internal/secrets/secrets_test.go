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
