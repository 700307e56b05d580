package sessionlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// FormatError reports a log that cannot be trusted: a corrupt line before the
// end, an unsupported version, a broken sequence or an over-long line.
type FormatError struct {
	Path   string
	Line   int   // 1-based line number, or 0 when only Offset is known
	Offset int64 // byte offset of the line, used when Line is 0
	Err    error
}

func (e *FormatError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: line at byte %d: %v", e.Path, e.Offset, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

var errLineTooLong = fmt.Errorf("line longer than %d bytes", MaxLineSize)

// Read returns every event of the log at path, in order.
//
// A last line that is not JSON (a write torn by a crash, or one still in
// progress by a concurrent writer) is skipped and reported in warnings. Any
// other defect is a *FormatError naming path and line: a non-JSON line
// followed by more lines, an event with a version above Version, missing
// envelope fields, or a seq that does not continue 1, 2, 3, .... On error the
// events are nil: a partial conversation must not pass for the whole one.
func Read(path string) (events []Event, warnings []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return read(f, path)
}

func read(r io.Reader, name string) ([]Event, []string, error) {
	p, err := scan(r, name)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case p.bad == nil:
		return p.events, nil, nil
	case p.tornTail:
		return p.events, []string{fmt.Sprintf("%s:%d: skipped torn last line (%d bytes): %v", name, p.bad.Line, p.badLen, p.bad.Err)}, nil
	case errors.As(p.bad.Err, new(errNotJSON)):
		return nil, nil, &FormatError{Path: name, Line: p.bad.Line, Err: fmt.Errorf("corrupt event: %w", p.bad.Err)}
	}
	return nil, nil, p.bad
}

// prefix is what scan found: the events up to the first line that is not
// the next event, and where that line starts.
type prefix struct {
	events []Event
	// end is the offset just past the last event's line (its newline included
	// when it has one).
	end int64
	// unterminated: the last event's line has no newline (the file ends there).
	unterminated bool
	// bad is the first line that is not the next event (nil when there is
	// none); badLen its length, tornTail that it is the last line and not
	// JSON at all, the signature of a write cut by a crash.
	bad      *FormatError
	badLen   int
	tornTail bool
}

// scan reads events until the first line that is not the next event. Only
// an I/O error is returned as an error; a bad line is described in the
// prefix.
func scan(r io.Reader, name string) (prefix, error) {
	lr := lineReader{br: bufio.NewReaderSize(r, 64<<10)}
	var p prefix
	for lineNo := 1; ; lineNo++ {
		line, err := lr.next()
		if err == io.EOF {
			return p, nil
		}
		if errors.Is(err, errLineTooLong) {
			p.bad = &FormatError{Path: name, Line: lineNo, Offset: p.end, Err: err}
			return p, nil
		}
		if err != nil {
			return prefix{}, fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
		ev, err := decodeLine(line)
		if err == nil && ev.Seq != int64(len(p.events))+1 {
			err = fmt.Errorf("corrupt event: seq %d, want %d", ev.Seq, len(p.events)+1)
		}
		if err != nil {
			p.bad, p.badLen = &FormatError{Path: name, Line: lineNo, Offset: p.end, Err: err}, len(line)
			if errors.As(err, new(errNotJSON)) {
				// A torn line is tolerated only where nothing follows it.
				_, nextErr := lr.next()
				p.tornTail = nextErr == io.EOF
			}
			return p, nil
		}
		p.events = append(p.events, ev)
		p.end += int64(len(line))
		if lr.ended {
			p.unterminated = true
		} else {
			p.end++
		}
	}
}

// lineReader splits a stream at '\n' with a MaxLineSize cap. A final line
// without '\n' is returned like any other: Read judges lines by content.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
	// ended is set once a line without '\n' was returned: the file ended
	// there when it was read. A writer may complete that line while the
	// file is still open, so nothing after it is read: the rest of the
	// line would look like a line of its own.
	ended bool
}

// next returns the next line without its '\n'. The slice is valid until the
// following call. It returns io.EOF when no bytes remain or the previous
// line was the unterminated last one.
func (lr *lineReader) next() ([]byte, error) {
	if lr.ended {
		return nil, io.EOF
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if len(lr.buf)+len(chunk) > MaxLineSize {
			return nil, errLineTooLong
		}
		lr.buf = append(lr.buf, chunk...)
		switch err {
		case nil:
			return lr.buf[:len(lr.buf)-1], nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if len(lr.buf) == 0 {
				return nil, io.EOF
			}
			lr.ended = true
			return lr.buf, nil
		default:
			return nil, err
		}
	}
}

// span is one line of a file: bytes [start, end), excluding the '\n' that
// follows when terminated.
type span struct {
	start, end int64
	terminated bool
}

// tailLines returns up to n lines from the end of the first size bytes of r,
// last line first, reading backwards so that the rest of the file is never
// touched. Lines are split exactly as Read splits them.
func tailLines(r io.ReaderAt, size int64, n int) ([]span, error) {
	if size == 0 {
		return nil, nil
	}
	var last [1]byte
	if _, err := r.ReadAt(last[:], size-1); err != nil {
		return nil, err
	}
	end, terminated := size, false
	if last[0] == '\n' {
		end, terminated = size-1, true
	}
	var spans []span
	buf := make([]byte, 16<<10)
	for len(spans) < n {
		nl, err := prevNewline(r, end, buf)
		if err != nil {
			return nil, err
		}
		spans = append(spans, span{start: nl + 1, end: end, terminated: terminated})
		if nl < 0 {
			break
		}
		end, terminated = nl, true
	}
	return spans, nil
}

// prevNewline returns the offset of the last '\n' before offset before, or -1
// when there is none, giving up after MaxLineSize bytes.
func prevNewline(r io.ReaderAt, before int64, buf []byte) (int64, error) {
	for end := before; end > 0; {
		if before-end >= MaxLineSize {
			return 0, errLineTooLong
		}
		start := max(0, end-int64(len(buf)))
		b := buf[:end-start]
		if _, err := r.ReadAt(b, start); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i), nil
		}
		end = start
	}
	return -1, nil
}

// readSpan returns the bytes of s.
func readSpan(r io.ReaderAt, s span) ([]byte, error) {
	b := make([]byte, s.end-s.start)
	if _, err := r.ReadAt(b, s.start); err != nil {
		return nil, err
	}
	return b, nil
}
