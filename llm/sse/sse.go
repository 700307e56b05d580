package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineSize bounds one line of the stream. Anthropic's SDK allows 32 MiB,
// and so do we: a tool input or a large text block arrives in one data line.
const MaxLineSize = 32 << 20

// MaxStreamSize bounds a whole stream. The longest answer a model can give
// (128k output tokens, framed as deltas) is a few tens of MiB at most, so
// a stream beyond this comes from a broken or hostile endpoint; reading on
// would only grow the answer in memory and past what one session-log line
// holds (64 MiB, sessionlog.MaxLineSize).
const MaxStreamSize = 32 << 20

// ErrStreamTooLarge is returned by Next once a stream passes MaxStreamSize.
var ErrStreamTooLarge = fmt.Errorf("sse: stream longer than %d MiB", MaxStreamSize>>20)

// Event is one dispatched event.
type Event struct {
	// Name is the "event:" field, or "" when the event had none (the
	// format's default type "message").
	Name string
	// Data is the event's data lines joined with "\n". It is a fresh slice
	// the caller may keep.
	Data []byte
	// ID is the last "id:" field seen so far in the stream, if any.
	ID string
}

// Reader splits a byte stream into events.
type Reader struct {
	scanner   *bufio.Scanner
	firstLine bool
	lastID    string // the format's "last event ID" buffer outlives events
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	s := bufio.NewScanner(&cappedReader{r: r, left: MaxStreamSize})
	s.Buffer(make([]byte, 0, 64<<10), MaxLineSize)
	s.Split(scanLines)
	return &Reader{scanner: s, firstLine: true}
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// an event that was not terminated by a blank line before the end is
// discarded, as the format requires, because it may be cut mid-payload.
// Lines without data ("event:" only, comments) never produce an event on
// their own.
func (r *Reader) Next() (Event, error) {
	var (
		ev      Event
		data    bytes.Buffer
		hasData bool
	)
	for r.scanner.Scan() {
		line := r.scanner.Bytes()
		if r.firstLine {
			r.firstLine = false
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		if len(line) == 0 {
			if !hasData {
				// A blank line without data resets the event
				// (for example after a lone "event:" line).
				ev = Event{}
				continue
			}
			ev.ID = r.lastID
			ev.Data = bytes.Clone(data.Bytes())
			if ev.Data == nil {
				ev.Data = []byte{}
			}
			return ev, nil
		}
		if line[0] == ':' {
			continue // comment, used as keep-alive
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "event":
			ev.Name = string(value)
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.Write(value)
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.lastID = string(value)
			}
		default:
			// "retry" and unknown fields are ignored.
		}
	}
	if err := r.scanner.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Event{}, fmt.Errorf("sse: line longer than %d bytes: %w", MaxLineSize, err)
		}
		return Event{}, err
	}
	return Event{}, io.EOF
}

// cappedReader fails with ErrStreamTooLarge once more than left bytes
// have been read.
type cappedReader struct {
	r    io.Reader
	left int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, ErrStreamTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// scanLines is a bufio.SplitFunc that accepts LF, CRLF and a lone CR as line
// terminators. The final line is returned even without a terminator so the
// Reader can see it, but it never completes an event by itself.
func scanLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		// CR: swallow a following LF, which needs one more byte.
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if atEOF {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}
