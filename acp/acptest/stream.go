package acptest

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Frame is one JSON-RPC frame as written on the wire, without its newline.
type Frame struct {
	// FromAgent is true for a frame the agent wrote, false for one the
	// editor wrote.
	FromAgent bool
	Line      []byte
}

// recordingStream is the editor side's framing (a jsonrpc2.ObjectStream):
// it records every inbound line, taps every frame in both directions, and
// reports anything that is not a JSON-RPC message.
type recordingStream struct {
	r      *bufio.Reader
	report func(string)
	tap    func(Frame) // nil: no tap

	wm     sync.Mutex // serializes writes, and taps of the editor's frames
	w      io.WriteCloser
	closed bool // the editor closed its side (wm)

	mu      sync.Mutex
	lines   []json.RawMessage
	readErr error // the first read error other than EOF (mu)

	transcribe bool              // CORDIS_ACP_TRANSCRIPT_DIR is set
	wire       []transcriptEntry // both directions, in order (guarded by mu)
}

// transcriptEntry is one line of a transcript file.
type transcriptEntry struct {
	From    string          `json:"from"` // "client" or "agent"
	Message json.RawMessage `json:"message,omitempty"`
	Raw     *string         `json:"raw,omitempty"` // a line that is not JSON
}

// note appends one line to the transcript; mu must be held.
func (s *recordingStream) note(from string, line []byte) {
	if !s.transcribe {
		return
	}
	entry := transcriptEntry{From: from}
	if json.Valid(line) {
		entry.Message = append(json.RawMessage(nil), line...)
	} else {
		raw := string(line)
		entry.Raw = &raw
	}
	s.wire = append(s.wire, entry)
}

func (s *recordingStream) transcript() []transcriptEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]transcriptEntry(nil), s.wire...)
}

// ReadObject reads the agent's next frame into v. Lines that are not
// JSON-RPC messages are reported and skipped; every frame is recorded and
// tapped before jsonrpc2 dispatches it, so a tap sees a request before it
// is answered and a response before its Call returns.
func (s *recordingStream) ReadObject(v any) error {
	for {
		line, err := s.r.ReadBytes('\n')
		if len(line) > 0 {
			trimmed := bytes.TrimSuffix(line, []byte("\n"))
			var probe struct {
				JSONRPC string `json:"jsonrpc"`
			}
			if jerr := json.Unmarshal(trimmed, &probe); jerr != nil || probe.JSONRPC != "2.0" {
				s.mu.Lock()
				s.note("agent", trimmed)
				s.mu.Unlock()
				s.report(fmt.Sprintf("acptest: agent wrote a non-JSON-RPC line to stdout: %q", truncate(string(trimmed), 300)))
			} else {
				frame := append(json.RawMessage(nil), trimmed...)
				s.mu.Lock()
				s.lines = append(s.lines, frame)
				s.note("agent", trimmed)
				s.mu.Unlock()
				if s.tap != nil {
					s.tap(Frame{FromAgent: true, Line: frame})
				}
				if isErrorWithNullID(trimmed) {
					// An answer to a raw malformed line: recorded; jsonrpc2
					// would mistake id null for its own request 0.
				} else if uerr := json.Unmarshal(trimmed, v); uerr == nil {
					return nil
				} else {
					s.report(fmt.Sprintf("acptest: undecodable frame %q: %v", truncate(string(trimmed), 300), uerr))
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.mu.Lock()
				s.readErr = cmp.Or(s.readErr, err)
				s.mu.Unlock()
			}
			return err
		}
	}
}

func isErrorWithNullID(line []byte) bool {
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error json.RawMessage `json:"error"`
	}
	return json.Unmarshal(line, &m) == nil && string(m.ID) == "null" && len(m.Error) > 0
}

func (s *recordingStream) WriteObject(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.writeRaw(append(data, '\n'))
}

// errWriteClosed is what a write after closeWrite returns: a reply to a
// request the agent made before the editor hung up is dropped, untapped.
var errWriteClosed = errors.New("acptest: the editor closed the agent's input")

func (s *recordingStream) writeRaw(b []byte) error {
	s.wm.Lock()
	defer s.wm.Unlock()
	if s.closed {
		return errWriteClosed
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if s.transcribe {
		s.mu.Lock()
		for _, line := range lines {
			s.note("client", line)
		}
		s.mu.Unlock()
	}
	if s.tap != nil {
		for _, line := range lines {
			s.tap(Frame{Line: append([]byte(nil), line...)})
		}
	}
	_, err := s.w.Write(b)
	return err
}

// closeWrite closes the agent's input once; later writes are dropped.
func (s *recordingStream) closeWrite() error {
	s.wm.Lock()
	defer s.wm.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.w.Close()
}

// Close implements jsonrpc2.ObjectStream (called when the connection
// ends).
func (s *recordingStream) Close() error { return s.closeWrite() }

func (s *recordingStream) frames() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.lines...)
}

func (s *recordingStream) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readErr
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
