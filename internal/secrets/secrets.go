package secrets

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"sync/atomic"
)

// MinLength is the shortest value Register accepts: shorter ones (a test's
// "x", an unset placeholder) would match ordinary text everywhere.
const MinLength = 8

type secret struct {
	value       []byte
	replacement []byte
}

var (
	registerMu sync.Mutex
	current    atomic.Pointer[[]secret]
)

// Register adds value, known as name (the variable it came from), to the
// values that are scrubbed; it is replaced by "[REDACTED:name]". Values
// shorter than MinLength and repeats are ignored.
func Register(name, value string) {
	value = strings.TrimSpace(value)
	if len(value) < MinLength {
		return
	}
	registerMu.Lock()
	defer registerMu.Unlock()
	var list []secret
	if p := current.Load(); p != nil {
		list = *p
	}
	for _, s := range list {
		if string(s.value) == value {
			return
		}
	}
	next := append(append([]secret(nil), list...), secret{value: []byte(value), replacement: []byte("[REDACTED:" + name + "]")})
	current.Store(&next)
}

// Reset forgets every registered value; for tests.
func Reset() {
	registerMu.Lock()
	defer registerMu.Unlock()
	current.Store(nil)
}

// Scrub returns b with every registered value replaced. When nothing
// matches it returns b itself, so the common case allocates nothing.
func Scrub(b []byte) []byte {
	p := current.Load()
	if p == nil {
		return b
	}
	for _, s := range *p {
		if bytes.Contains(b, s.value) {
			b = bytes.ReplaceAll(b, s.value, s.replacement)
		}
	}
	return b
}

// ScrubString is Scrub for a string.
func ScrubString(s string) string {
	p := current.Load()
	if p == nil {
		return s
	}
	for _, sec := range *p {
		if strings.Contains(s, string(sec.value)) {
			s = strings.ReplaceAll(s, string(sec.value), string(sec.replacement))
		}
	}
	return s
}

// Writer scrubs every Write before passing it on. A value split across two
// writes is not caught, so it is for writers that are given whole records
// (a JSON-RPC frame, a log line) per call; text that streams in pieces
// goes through a Stream first.
type Writer struct{ W io.Writer }

// Write writes p scrubbed; it reports len(p) on success, whatever the
// length written, as io.Writer callers expect.
func (w Writer) Write(p []byte) (int, error) {
	if _, err := w.W.Write(Scrub(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Stream scrubs text that arrives in pieces, such as a model's streamed
// answer, where a value may be split over several pieces that each look
// harmless. The end of a piece that could be the start of a value (at
// most the longest value less one byte) is held back until the next piece
// or Flush shows whether the value completes; everything else passes at
// once. Held text is never dropped or reordered: it is the start of what
// the next Write or Flush returns.
//
// The zero value is ready. A Stream is for one sequence of pieces, read by
// one goroutine at a time.
type Stream struct {
	held string
}

// Write returns what of the held text and s can be passed on now,
// scrubbed ("" when all of it is held back).
func (st *Stream) Write(s string) string {
	p := current.Load()
	if p == nil {
		s, st.held = st.held+s, ""
		return s
	}
	s = ScrubString(st.held + s)
	keep := 0
	for _, sec := range *p {
		keep = max(keep, partialAtEnd(s, sec.value))
	}
	st.held = s[len(s)-keep:]
	return s[:len(s)-keep]
}

// Flush returns the held text: the pieces ended, so it completes no
// value (a complete one was already replaced by Write).
func (st *Stream) Flush() string {
	s := st.held
	st.held = ""
	return s
}

// partialAtEnd is the length of the longest end of s that is a proper
// start of value (0 when none is).
func partialAtEnd(s string, value []byte) int {
	for k := min(len(s), len(value)-1); k > 0; k-- {
		if s[len(s)-k] == value[0] && s[len(s)-k:] == string(value[:k]) {
			return k
		}
	}
	return 0
}
