package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func readAll(t testing.TB, r io.Reader) ([]Event, error) {
	t.Helper()
	sr := NewReader(r)
	var events []Event
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []Event
	}{
		{
			name:  "anthropic frame",
			input: "event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
			want:  []Event{{Name: "message_start", Data: []byte(`{"type":"message_start"}`)}},
		},
		{
			name:  "padding inside JSON is data, untouched",
			input: "event: message_stop\ndata: {\"type\":\"message_stop\"       }\n\n",
			want:  []Event{{Name: "message_stop", Data: []byte(`{"type":"message_stop"       }`)}},
		},
		{
			name:  "CRLF line endings",
			input: "event: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\nevent: a\r\ndata: 1\r\n\r\n",
			want: []Event{
				{Name: "ping", Data: []byte(`{"type": "ping"}`)},
				{Name: "a", Data: []byte("1")},
			},
		},
		{
			name:  "lone CR line endings",
			input: "event: a\rdata: 1\r\rdata: 2\r\r",
			want: []Event{
				{Name: "a", Data: []byte("1")},
				{Data: []byte("2")},
			},
		},
		{
			name:  "multi-line data joined with newline",
			input: "data: {\ndata: \"a\": 1\ndata: }\n\n",
			want:  []Event{{Data: []byte("{\n\"a\": 1\n}")}},
		},
		{
			name:  "comments are skipped",
			input: ": keep-alive\nevent: x\n: another\ndata: y\n\n:\n\n",
			want:  []Event{{Name: "x", Data: []byte("y")}},
		},
		{
			name:  "only one leading space is stripped; no space is fine",
			input: "data:no-space\n\ndata:  two\n\n",
			want:  []Event{{Data: []byte("no-space")}, {Data: []byte(" two")}},
		},
		{
			name:  "empty data field dispatches an empty event",
			input: "data\n\ndata:\n\n",
			want:  []Event{{Data: []byte{}}, {Data: []byte{}}},
		},
		{
			name:  "event without data is dropped and does not leak into the next",
			input: "event: lonely\n\ndata: 1\n\n",
			want:  []Event{{Data: []byte("1")}},
		},
		{
			name:  "id persists, unknown fields ignored",
			input: "id: 7\nretry: 100\nfoo: bar\ndata: a\n\ndata: b\n\n",
			want:  []Event{{ID: "7", Data: []byte("a")}, {ID: "7", Data: []byte("b")}},
		},
		{
			name:  "byte order mark at start",
			input: "\xEF\xBB\xBFdata: a\n\n",
			want:  []Event{{Data: []byte("a")}},
		},
		{
			name:  "unterminated final event is discarded",
			input: "data: a\n\ndata: {\"partial\":",
			want:  []Event{{Data: []byte("a")}},
		},
		{
			name:  "openai done sentinel",
			input: "data: {\"choices\":[]}\n\ndata: [DONE]\n\n",
			want:  []Event{{Data: []byte(`{"choices":[]}`)}, {Data: []byte("[DONE]")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(t, strings.NewReader(tt.input))
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			// One byte per Read exercises a CR and LF split across reads.
			got, err = readAll(t, iotest.OneByteReader(strings.NewReader(tt.input)))
			if err != nil {
				t.Fatalf("read one byte at a time: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("one-byte reads: events mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReaderLongLine(t *testing.T) {
	payload := strings.Repeat("x", 1<<20)
	got, err := readAll(t, strings.NewReader("data: "+payload+"\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || string(got[0].Data) != payload {
		t.Fatalf("got %d events, want one with the 1 MiB payload", len(got))
	}
}

func TestReaderLineTooLong(t *testing.T) {
	r := io.MultiReader(strings.NewReader("data: "), zeros(MaxLineSize+1))
	_, err := readAll(t, r)
	if err == nil || !strings.Contains(err.Error(), "line longer than") {
		t.Fatalf("err = %v, want line too long", err)
	}
}

func TestReaderPropagatesReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := readAll(t, r)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if len(got) != 1 || string(got[0].Data) != "a" {
		t.Fatalf("events before the error = %+v, want one event \"a\"", got)
	}
}

type zeroReader struct{ n int }

func zeros(n int) io.Reader { return &zeroReader{n: n} }

func (z *zeroReader) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), z.n)
	for i := range p[:n] {
		p[i] = 'a'
	}
	z.n -= n
	return n, nil
}

// referenceEvents is a deliberately naive second implementation of the
// framing rules, used as an oracle by the fuzz target.
func referenceEvents(input []byte) []Event {
	s := string(bytes.TrimPrefix(input, []byte("\xEF\xBB\xBF")))
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	lines = lines[:len(lines)-1] // unterminated tail (or "" after the last LF)
	var (
		events []Event
		cur    Event
		data   []string
		id     string
	)
	for _, line := range lines {
		switch {
		case line == "":
			if data != nil {
				cur.ID = id
				cur.Data = []byte(strings.Join(data, "\n"))
				events = append(events, cur)
			}
			cur, data = Event{}, nil
		case strings.HasPrefix(line, ":"):
		default:
			field, value, found := strings.Cut(line, ":")
			if found {
				value = strings.TrimPrefix(value, " ")
			}
			switch field {
			case "event":
				cur.Name = value
			case "data":
				data = append(data, value)
			case "id":
				if !strings.Contains(value, "\x00") {
					id = value
				}
			}
		}
	}
	return events
}

func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("event: message_stop\ndata: {\"type\":\"message_stop\"       }\n\n"))
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n: c\r\n"))
	f.Fuzz(func(t *testing.T, input []byte) {
		got, err := readAll(t, bytes.NewReader(input))
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		want := referenceEvents(input)
		if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) })); diff != "" {
			t.Fatalf("events differ from the reference (-want +got):\n%s", diff)
		}
		for _, ev := range got {
			if strings.ContainsAny(ev.Name, "\r\n") || bytes.ContainsRune(ev.Data, '\r') {
				t.Fatalf("line terminator leaked into event %+v", ev)
			}
		}
	})
}

// An endless stream of small, well-formed events ends with
// ErrStreamTooLarge instead of growing without bound.
func TestStreamSizeIsBounded(t *testing.T) {
	event := []byte("event: content_block_delta\ndata: {\"text\":\"" + strings.Repeat("x", 1000) + "\"}\n\n")
	endless := &repeatReader{chunk: event}
	r := NewReader(endless)
	var n int
	var err error
	for {
		if _, err = r.Next(); err != nil {
			break
		}
		n++
	}
	if !errors.Is(err, ErrStreamTooLarge) {
		t.Fatalf("after %d events: err = %v, want ErrStreamTooLarge", n, err)
	}
	if read := endless.read; read > MaxStreamSize+int64(len(event)) {
		t.Errorf("read %d bytes, want at most about %d", read, MaxStreamSize)
	}
}

type repeatReader struct {
	chunk []byte
	off   int
	read  int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.chunk[r.off:])
		n += c
		r.off = (r.off + c) % len(r.chunk)
	}
	r.read += int64(n)
	return n, nil
}
