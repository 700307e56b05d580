package sessionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cordis-agent/cordis/internal/secrets"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("sessionlog: writer is closed")

// ErrLocked is returned by Create, Open and Load when another Writer (in
// this process or another) has the log open for appending.
var ErrLocked = errors.New("the session log is open in another cordis process")

// Option configures a Writer.
type Option func(*options)

type options struct {
	now  func() time.Time
	sync bool
}

// WithClock sets the clock that stamps events (default time.Now), so tests
// can produce deterministic logs.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithSync makes every Append fsync the file before returning.
//
// It is off by default. Append is already write-through: once it returns, the
// line is in the kernel and survives the agent crashing or being killed, which
// is the failure an editor subprocess actually meets. fsync only adds
// protection against an OS crash or power loss, at the price of waiting for the
// disk on every event (a turn writes dozens), and the log tolerates exactly
// what such a crash leaves behind: a torn or missing tail.
func WithSync(on bool) Option {
	return func(o *options) { o.sync = on }
}

// Writer appends events to one log file. It is safe for concurrent use.
// There must be at most one Writer per file per process, and no other process
// may write the file: the Writer owns the sequence numbers and the tail.
type Writer struct {
	path string
	now  func() time.Time
	sync bool

	mu       sync.Mutex
	f        *os.File // nil once closed
	seq      int64    // seq of the last event in the file
	size     int64    // file size after the last complete line
	broken   error    // set when a torn write could not be undone
	warnings []string
	dropped  Dropped // what Load cut off
}

func newWriter(path string, f *os.File, opts []Option) *Writer {
	o := options{now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	return &Writer{path: path, now: o.now, sync: o.sync, f: f}
}

// Create creates a new, empty log at path, making its directory if needed.
// It fails if the file exists, so that a session log is never overwritten.
func Create(path string, opts ...Option) (*Writer, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sessionlog: %w", err)
	}
	// Read access too: relink copies the file back if it is deleted.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sessionlog: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("sessionlog: %s: %w", path, err)
	}
	w := newWriter(path, f, opts)
	if w.sync {
		// Make the new directory entry durable too; best effort, since some
		// file systems refuse to fsync a directory.
		if d, err := os.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return w, nil
}

// Open opens an existing log for appending, continuing after its last event.
//
// Open repairs the tail the same way Read judges it, looking only at the last
// two lines. If the last line is a complete event missing its '\n' (a write
// cut just before the newline), Open keeps it and writes the '\n'. If the last
// line is not JSON (a torn write), Open truncates the file at the start of that
// line: those bytes never formed an event, so nothing complete is lost, and
// appending after them would turn a tolerated torn tail into a corrupt middle
// line. Each repair is reported by Warnings. Open does not read the rest of the
// file; a corrupt middle is Read's to report.
func Open(path string, opts ...Option) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("sessionlog: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("sessionlog: %s: %w", path, err)
	}
	w := newWriter(path, f, opts)
	if err := w.repairTail(); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

func (w *Writer) repairTail() error {
	fi, err := w.f.Stat()
	if err != nil {
		return fmt.Errorf("sessionlog: %w", err)
	}
	size := fi.Size()
	spans, err := tailLines(w.f, size, 2)
	if err != nil {
		return fmt.Errorf("sessionlog: %s: reading tail: %w", w.path, err)
	}
	if len(spans) == 0 {
		return nil
	}
	last := spans[0]
	b, err := readSpan(w.f, last)
	if err != nil {
		return fmt.Errorf("sessionlog: %s: reading tail: %w", w.path, err)
	}
	ev, err := decodeLine(b)
	if err == nil {
		w.seq, w.size = ev.Seq, size
		if !last.terminated {
			if _, err := w.f.Write([]byte{'\n'}); err != nil {
				return fmt.Errorf("sessionlog: %s: terminating last line: %w", w.path, err)
			}
			w.size++
			w.warnings = append(w.warnings, fmt.Sprintf("%s: added missing newline after the last event (seq %d)", w.path, ev.Seq))
		}
		return nil
	}
	var nj errNotJSON
	if !errors.As(err, &nj) {
		return &FormatError{Path: w.path, Offset: last.start, Err: err}
	}
	// The torn line goes; the line before it, now the last, must be sound
	// (Read would reject the file otherwise). Check before cutting anything.
	var seq int64
	if len(spans) > 1 {
		b, err := readSpan(w.f, spans[1])
		if err != nil {
			return fmt.Errorf("sessionlog: %s: reading tail: %w", w.path, err)
		}
		prev, err := decodeLine(b)
		if err != nil {
			if errors.As(err, &nj) {
				err = fmt.Errorf("corrupt event: %w", nj.err)
			}
			return &FormatError{Path: w.path, Offset: spans[1].start, Err: err}
		}
		seq = prev.Seq
	}
	if err := w.f.Truncate(last.start); err != nil {
		return fmt.Errorf("sessionlog: %s: removing torn last line: %w", w.path, err)
	}
	w.seq, w.size = seq, last.start
	w.warnings = append(w.warnings, fmt.Sprintf("%s: removed torn last line at byte %d (%d bytes): %v",
		w.path, last.start, size-last.start, nj.err))
	return nil
}

// Append writes one event of type typ with data marshalled to JSON, stamping
// it with the next seq and the clock's time in UTC. The line goes to the file
// in one write(2) on an O_APPEND descriptor with no user-space buffering, so
// a crash leaves at most one torn last line and every returned event is in the
// file. If a write fails part-way, Append cuts the partial line off again; if
// even that fails, the Writer refuses further appends rather than glue events
// onto a torn line. With WithSync, an fsync failure is returned together with
// the event, which has been written. A log deleted while open is first put
// back at its path, whole (see relink).
func (w *Writer) Append(typ string, data any) (Event, error) {
	if typ == "" {
		return Event{}, errors.New("sessionlog: empty event type")
	}
	buf, err := marshalWithRoom(data, headerRoom(typ))
	if err != nil {
		return Event{}, fmt.Errorf("sessionlog: %s: marshal %s data: %w", w.path, typ, err)
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return Event{}, ErrClosed
	}
	if w.broken != nil {
		return Event{}, w.broken
	}
	if err := w.relink(); err != nil {
		return Event{}, err
	}
	ev := Event{V: versionOf(data), Seq: w.seq + 1, Time: w.now().UTC(), Type: typ}
	line, err := lineInPlace(&ev, buf, headerRoom(typ))
	if err != nil {
		return Event{}, fmt.Errorf("sessionlog: %s: %s event: %w", w.path, typ, err)
	}
	// A provider key a subprocess printed never reaches the disk.
	line = secrets.Scrub(line)
	n, err := w.f.Write(line)
	if err != nil {
		if n > 0 {
			if terr := w.f.Truncate(w.size); terr != nil {
				w.broken = fmt.Errorf("sessionlog: %s: writer disabled: a torn write could not be undone: %v", w.path, terr)
			}
		}
		return Event{}, fmt.Errorf("sessionlog: %s: append: %w", w.path, err)
	}
	w.size += int64(n)
	w.seq = ev.Seq
	if w.sync {
		if err := w.f.Sync(); err != nil {
			return ev, fmt.Errorf("sessionlog: %s: event %d written but not synced: %w", w.path, ev.Seq, err)
		}
	}
	return ev, nil
}

// Seq returns the seq of the last event in the file (0 for an empty log).
func (w *Writer) Seq() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seq
}

// Path returns the file the Writer appends to.
func (w *Writer) Path() string { return w.path }

// Warnings returns the tail repairs Open made, for the caller to log.
func (w *Writer) Warnings() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.warnings...)
}

// Close closes the file. Later Appends return ErrClosed; a second Close is a
// no-op.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// marshalData encodes data compactly. HTML escaping is off because logs are
// read by people and full of code, where \u003c would only obscure.
func marshalData(data any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(data); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// dataWrapper encodes as `{"data":…}`, the end of an event's line.
type dataWrapper struct {
	Data any `json:"data"`
}

// headerRoom is the room marshalWithRoom keeps for the start of a line
// of type typ (`{"v":…,"seq":…,"time":…,"type":…,`), whose seq and time
// are only known under the lock.
func headerRoom(typ string) int { return 96 + 2*len(typ) }

// marshalWithRoom encodes data as the end of a line, `{"data":…}\n`,
// after room unused bytes. The data is encoded once and the line is
// built around it in the same buffer (lineInPlace), so a large event
// (a 16 MiB Write's message) is not copied again for its line.
func marshalWithRoom(data any, room int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Write(make([]byte, room))
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(dataWrapper{data}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// lineInPlace completes the line marshalWithRoom started in buf: the
// header goes into the room, replacing the wrapper's '{'. It sets
// ev.Data to the data's bytes in the line.
func lineInPlace(ev *Event, buf []byte, room int) ([]byte, error) {
	const open = `{"data":`
	ev.Data = buf[room+len(open) : len(buf)-2] // before "}\n"
	header, err := appendHeader(nil, *ev)
	if err != nil {
		return nil, err
	}
	header = append(header, ',')
	if len(header) > room+1 {
		return encodeLine(*ev) // cannot happen: the room fits any header
	}
	if bytes.IndexByte(ev.Data, '\n') >= 0 {
		return nil, errors.New("data contains a raw newline")
	}
	line := buf[room+1-len(header):]
	copy(line, header)
	if len(line) > MaxLineSize {
		return nil, fmt.Errorf("%d-byte line exceeds the %d-byte limit", len(line), MaxLineSize)
	}
	return line, nil
}

// appendHeader appends the start of ev's line, `{"v":…,"seq":…,"time":…,"type":…`.
func appendHeader(line []byte, ev Event) ([]byte, error) {
	t, err := ev.Time.MarshalJSON() // rejects years outside 0..9999
	if err != nil {
		return nil, err
	}
	typ, err := json.Marshal(ev.Type)
	if err != nil {
		return nil, err
	}
	line = append(line, `{"v":`...)
	line = strconv.AppendInt(line, int64(ev.V), 10)
	line = append(line, `,"seq":`...)
	line = strconv.AppendInt(line, ev.Seq, 10)
	line = append(line, `,"time":`...)
	line = append(line, t...)
	line = append(line, `,"type":`...)
	return append(line, typ...), nil
}

// encodeLine renders ev as one '\n'-terminated line. It is built by hand so
// that a large Data is copied once rather than re-validated by json.Marshal,
// and so the field order (v, seq, time first) is fixed for List's tail peek.
func encodeLine(ev Event) ([]byte, error) {
	if bytes.IndexByte(ev.Data, '\n') >= 0 {
		// Cannot happen with encoding/json output; checked because one stray
		// newline would split the event and corrupt the log.
		return nil, errors.New("data contains a raw newline")
	}
	line, err := appendHeader(make([]byte, 0, headerRoom(ev.Type)+len(ev.Data)), ev)
	if err != nil {
		return nil, err
	}
	line = append(line, `,"data":`...)
	line = append(line, ev.Data...)
	line = append(line, "}\n"...)
	if len(line) > MaxLineSize {
		return nil, fmt.Errorf("%d-byte line exceeds the %d-byte limit", len(line), MaxLineSize)
	}
	return line, nil
}
