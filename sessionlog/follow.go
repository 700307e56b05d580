package sessionlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Follower reads a log incrementally: each Next returns the events of the
// complete lines appended since the previous call. A last line without
// its '\n' (a write in progress, or torn by a crash) is never returned;
// it is read again, whole, once its writer finishes it.
//
// A Follower is not safe for concurrent use; it may follow a log that a
// Writer appends to at the same time.
type Follower struct {
	path   string
	offset int64 // just after the last complete line read
	line   int   // lines read so far, for errors
}

// Follow returns a Follower of the log at path, starting at its
// beginning. The file need not exist yet.
func Follow(path string) *Follower { return &Follower{path: path} }

// Path is the log's path.
func (f *Follower) Path() string { return f.path }

// Offset is the byte offset just after the last complete line read.
func (f *Follower) Offset() int64 { return f.offset }

// Next returns the events of the complete lines added since the last call
// (none when the file does not exist yet). A complete line that is not a
// valid event is a *FormatError and stops the Follower there: later
// calls return the same error. Sequence numbers are not checked (Read
// does); a Follower only reads.
func (f *Follower) Next() ([]Event, error) {
	file, err := os.Open(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if _, err := file.Seek(f.offset, io.SeekStart); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(file, 64<<10)
	var events []Event
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLineSize {
			return events, &FormatError{Path: f.path, Line: f.line + 1, Err: errLineTooLong}
		}
		buf = append(buf, chunk...)
		switch err {
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			return events, nil // an unterminated line waits for its '\n'
		case nil:
		default:
			return events, err
		}
		ev, err := decodeLine(bytes.TrimSuffix(buf, []byte("\n")))
		if err != nil {
			return events, &FormatError{Path: f.path, Line: f.line + 1, Err: fmt.Errorf("corrupt event: %w", err)}
		}
		events = append(events, ev)
		f.offset += int64(len(buf))
		f.line++
		buf = buf[:0]
	}
}
