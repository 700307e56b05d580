package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// MaxMessageBytes caps one inbound JSON-RPC line. Large base64 images are
// the biggest legitimate messages; 64 MiB leaves ample room.
const MaxMessageBytes = 64 << 20

// lineStream is a newline-delimited jsonrpc2.ObjectStream that survives bad
// input. jsonrpc2 closes the connection when ReadObject fails, so a bad
// line is answered here (-32700 or -32600, per JSON-RPC 2.0) and reading
// goes on with the next line.
type lineStream struct {
	r      *bufio.Reader
	closer io.Closer
	log    *slog.Logger

	mu sync.Mutex // serialises writes: the read path answers bad lines while turns write
	w  io.Writer
}

func newLineStream(r io.Reader, w io.Writer, c io.Closer, log *slog.Logger) *lineStream {
	return &lineStream{r: bufio.NewReaderSize(r, 64<<10), w: w, closer: c, log: log}
}

func (s *lineStream) ReadObject(v any) error {
	for {
		line, oversized, err := s.readLine()
		var werr error
		switch {
		case oversized:
			werr = s.replyMalformed(json.RawMessage("null"), CodeParseError, fmt.Sprintf("parse error: message exceeds %d bytes", MaxMessageBytes))
		case len(bytes.TrimSpace(line)) == 0:
		default:
			uerr := json.Unmarshal(line, v)
			if uerr == nil {
				return nil
			}
			werr = s.reject(line, uerr)
		}
		if werr != nil {
			return werr
		}
		if err != nil {
			return err
		}
	}
}

// readLine returns the next line without its terminator. An over-long
// line is consumed to its end and reported instead of buffered.
func (s *lineStream) readLine() (line []byte, oversized bool, err error) {
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if !oversized {
			if len(buf)+len(chunk) > MaxMessageBytes {
				oversized, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), oversized, err
	}
}

// reject answers a line jsonrpc2 could not take. Per JSON-RPC 2.0, a
// parse error or an unidentifiable request is answered with id null; a
// well-formed object that is not a valid message is answered with its own
// id, or dropped when it has none (it cannot be told from a notification).
func (s *lineStream) reject(line []byte, cause error) error {
	id := json.RawMessage("null")
	code, msg := CodeParseError, "parse error: "+cause.Error()
	switch {
	case !json.Valid(line):
	case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
		code, msg = CodeInvalidRequest, "invalid request: batches are not supported"
	default:
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		if len(probe.ID) == 0 || string(probe.ID) == "null" {
			s.log.Warn("dropped an invalid JSON-RPC message without id", "error", cause, "bytes", len(line))
			return nil
		}
		id = probe.ID
		code, msg = CodeInvalidRequest, "invalid request: "+cause.Error()
	}
	s.log.Warn("answered a malformed JSON-RPC line", "code", code, "error", cause)
	return s.replyMalformed(id, code, msg)
}

func (s *lineStream) replyMalformed(id json.RawMessage, code int, msg string) error {
	return s.WriteObject(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   Error           `json:"error"`
	}{"2.0", id, Error{Code: int64(code), Message: msg}})
}

func (s *lineStream) WriteObject(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err = s.w.Write(data)
	return err
}

// notificationFrame encodes one notification frame, newline included,
// byte for byte what jsonrpc2's Notify writes, but encoding params once:
// jsonrpc2 marshals the params, then the request, then the message, and
// encoding/json re-validates the bytes of each inner layer, which made a
// streamed text delta cost several times its own encoding (BENCHMARKS.md).
func notificationFrame(method string, params json.Marshaler) ([]byte, error) {
	p, err := params.MarshalJSON()
	if err != nil {
		return nil, err
	}
	m, _ := json.Marshal(method)
	frame := make([]byte, 0, len(p)+len(m)+40)
	frame = append(frame, `{"jsonrpc":"2.0","method":`...)
	frame = append(frame, m...)
	frame = append(frame, `,"params":`...)
	frame = append(frame, p...)
	return append(frame, "}\n"...), nil
}

// writeFrames writes whole frames in one write. Like jsonrpc2, it writes
// nothing once the connection is closed (a write to a closed stdout kills
// the process with SIGPIPE).
func (s *lineStream) writeFrames(closed <-chan struct{}, frames []byte) error {
	select {
	case <-closed:
		return jsonrpc2.ErrClosed
	default:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.w.Write(frames)
	return err
}

func (s *lineStream) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}

// MarshalJSON writes the JSON-RPC error object.
func (e Error) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}{e.Code, e.Message, e.Data})
}
