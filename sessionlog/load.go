package sessionlog

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Load opens an existing log for appending (locked, like Open) and returns
// its events, recovering what it can: every event up to the first line
// that is not the next event is kept, and the rest is cut off so that new
// events continue a sound log. A torn last line (a crash) is dropped as
// Open drops it; anything else cut off (a corrupt line, a broken sequence,
// as two processes appending to one log leave behind) is first saved
// beside the log (DroppedPath) so that nothing is destroyed. Each repair
// is a warning, for the caller to show the user.
//
// A line of a newer log version is not a defect to cut off but a log this
// build cannot continue: Load refuses it with a *FormatError. So is a
// file with lines of which not one is kept (the first is no event):
// that is not a damaged log but something else (garbage, another
// format), and loading it as an empty session would hide that; the error
// wraps ErrNoEvents, names the file and leaves it as it is. An empty file
// loads as a session without events: it is what a crash between Create
// and the first Append leaves, and there is nothing in it to lose.
func Load(path string, opts ...Option) (*Writer, []Event, []string, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sessionlog: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("sessionlog: %s: %w", path, err)
	}
	w := newWriter(path, f, opts)
	events, err := w.recoverPrefix()
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return w, events, w.warnings, nil
}

// ErrNoEvents is why Load refuses a file none of whose lines it can keep
// as an event.
var ErrNoEvents = errors.New("not a session log: no event could be read from it")

// Dropped describes what Load cut off a damaged log (the zero value: nothing
// but, at most, a torn last line).
type Dropped struct {
	Kept    int    // events kept
	Line    int    // the first line not kept
	Reason  string // why that line was not the next event
	Bytes   int64  // bytes cut off
	SavedIn string // the file they were saved in
}

// Dropped reports what Load cut off.
func (w *Writer) Dropped() Dropped {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// DroppedPath is where Load saves what it cut off a log at byte offset.
func DroppedPath(path string, offset int64) string {
	return path + ".dropped-" + strconv.FormatInt(offset, 10)
}

// recoverPrefix reads the whole log, cuts it after its last sound event
// and sets the Writer's seq and size.
func (w *Writer) recoverPrefix() ([]Event, error) {
	p, err := scan(w.f, w.path)
	if err != nil {
		return nil, fmt.Errorf("sessionlog: %w", err)
	}
	if p.bad != nil && isVersionError(p.bad.Err) {
		return nil, p.bad
	}
	if p.bad != nil && len(p.events) == 0 {
		// Checked before anything is cut off or saved aside: the file is
		// left exactly as it was.
		return nil, &FormatError{Path: w.path, Line: p.bad.Line, Err: fmt.Errorf("%w (%v)", ErrNoEvents, p.bad.Err)}
	}
	w.seq, w.size = int64(len(p.events)), p.end
	if p.bad != nil {
		if err := w.cutAt(p); err != nil {
			return nil, err
		}
	}
	if p.unterminated && p.bad == nil {
		if _, err := w.f.Write([]byte{'\n'}); err != nil {
			return nil, fmt.Errorf("sessionlog: %s: terminating last line: %w", w.path, err)
		}
		w.size++
		w.warnings = append(w.warnings, fmt.Sprintf("%s: added missing newline after the last event (seq %d)", w.path, w.seq))
	}
	return p.events, nil
}

// cutAt truncates the log where p went bad, saving the bytes cut off
// first unless they are only a torn last line.
func (w *Writer) cutAt(p prefix) error {
	fi, err := w.f.Stat()
	if err != nil {
		return fmt.Errorf("sessionlog: %w", err)
	}
	cut := fi.Size() - p.end
	if p.tornTail {
		w.warnings = append(w.warnings, fmt.Sprintf("%s: removed torn last line at byte %d (%d bytes): %v", w.path, p.end, cut, p.bad.Err))
	} else {
		saved := DroppedPath(w.path, p.end)
		if err := w.saveFrom(p.end, saved); err != nil {
			return err
		}
		w.dropped = Dropped{Kept: len(p.events), Line: p.bad.Line, Reason: p.bad.Err.Error(), Bytes: cut, SavedIn: saved}
		w.warnings = append(w.warnings, fmt.Sprintf("%s:%d: %v; kept the %d events before it, cut off the rest (%d bytes, saved in %s)",
			w.path, p.bad.Line, p.bad.Err, len(p.events), cut, saved))
	}
	if err := w.f.Truncate(p.end); err != nil {
		return fmt.Errorf("sessionlog: %s: cutting off a damaged end: %w", w.path, err)
	}
	return nil
}

// saveFrom copies the log from offset on to a new file at dst.
func (w *Writer) saveFrom(offset int64, dst string) error {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("sessionlog: saving the damaged part: %w", err)
	}
	_, err = io.Copy(out, io.NewSectionReader(w.f, offset, 1<<62))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
		return fmt.Errorf("sessionlog: saving the damaged part: %w", err)
	}
	return nil
}

func isVersionError(err error) bool { return errors.Is(err, errUnsupportedVersion) }
