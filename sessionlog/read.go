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
	lr := lineReader{br: bufio.NewReaderSize(r, 64<<10)}
	var events []Event
	// A non-JSON line is only an error once another line follows it, so its
	// verdict waits here.
	var torn error
	var tornLine, tornLen int
	for lineNo := 1; ; lineNo++ {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, errLineTooLong) {
			return nil, nil, &FormatError{Path: name, Line: lineNo, Err: err}
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
		if torn != nil {
			return nil, nil, &FormatError{Path: name, Line: tornLine, Err: fmt.Errorf("corrupt event: %w", torn)}
		}
		ev, err := decodeLine(line)
		if err != nil {
			var nj errNotJSON
			if errors.As(err, &nj) {
				torn, tornLine, tornLen = nj.err, lineNo, len(line)
				continue
			}
			return nil, nil, &FormatError{Path: name, Line: lineNo, Err: err}
		}
		if want := int64(len(events)) + 1; ev.Seq != want {
			return nil, nil, &FormatError{Path: name, Line: lineNo, Err: fmt.Errorf("corrupt event: seq %d, want %d", ev.Seq, want)}
		}
		events = append(events, ev)
	}
	var warnings []string
	if torn != nil {
		warnings = append(warnings, fmt.Sprintf("%s:%d: skipped torn last line (%d bytes): %v", name, tornLine, tornLen, torn))
	}
	return events, warnings, nil
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
