package sessionlog

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// relink puts the log back at its path when its file lost its name while
// open (the sessions directory or the file was deleted): appends would
// otherwise go to a file nobody can open again, and the session would be
// gone at the next start although every turn seemed saved. The file still
// holds every event, so they are copied to a new file at the path, which
// takes the lock and the appends from then on. If something else now has
// the path (the file was replaced), relink fails and Append with it.
// Called with w.mu held.
func (w *Writer) relink() error {
	if !unlinked(w.f) {
		return nil
	}
	fail := func(err error) error {
		return fmt.Errorf("sessionlog: %s was deleted while open and cannot be put back: %w", w.path, err)
	}
	if err := os.MkdirAll(filepath.Dir(w.path), 0o700); err != nil {
		return fail(err)
	}
	nf, err := os.OpenFile(w.path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return fail(err)
	}
	if err := lockFile(nf); err != nil {
		nf.Close()
		return fail(err)
	}
	if _, err := io.Copy(nf, io.NewSectionReader(w.f, 0, w.size)); err != nil {
		nf.Close()
		os.Remove(w.path)
		return fail(err)
	}
	if w.sync {
		nf.Sync()
	}
	w.f.Close()
	w.f = nf
	return nil
}
