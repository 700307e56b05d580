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
// (a JSON-RPC frame, a log line) per call.
type Writer struct{ W io.Writer }

// Write writes p scrubbed; it reports len(p) on success, whatever the
// length written, as io.Writer callers expect.
func (w Writer) Write(p []byte) (int, error) {
	if _, err := w.W.Write(Scrub(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
