package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/cordis-agent/cordis/internal/trust"
)

// loader reads hook files, caches them by path and re-reads a file when
// its modification time or size changes. It logs each problem of a file
// once per version (not again when an edit leaves the same problems).
// Its mutex is never held while a file is read.
type loader[H Handler] struct {
	parse func(Layer, []byte) *File[H]
	log   *slog.Logger
	title string

	mu      sync.Mutex
	entries map[string]*cached[H]
	order   []string // paths in first-seen order, for Problems
}

// cached is the loader's view of one path.
type cached[H Handler] struct {
	layer   Layer // as last loaded
	checked bool
	exists  bool
	modTime time.Time
	size    int64
	file    *File[H] // nil when missing
}

func newLoader[H Handler](parse func(Layer, []byte) *File[H], log *slog.Logger, title string) *loader[H] {
	return &loader[H]{parse: parse, log: log, title: title, entries: map[string]*cached[H]{}}
}

// load returns the parsed file of l, re-reading it when it changed; nil
// when it does not exist (a missing file is not a problem).
func (l *loader[H]) load(layer Layer) *File[H] {
	info, statErr := os.Stat(layer.Path)
	missing := errors.Is(statErr, fs.ErrNotExist) || errors.Is(statErr, syscall.ENOTDIR)
	l.mu.Lock()
	c := l.entries[layer.Path]
	if c == nil {
		c = &cached[H]{}
		l.entries[layer.Path] = c
		l.order = append(l.order, layer.Path)
	}
	c.layer = layer
	if missing {
		if !c.checked || c.exists {
			l.logMissing(layer)
		}
		c.checked, c.exists, c.file = true, false, nil
		l.mu.Unlock()
		return nil
	}
	if statErr == nil && c.exists && c.file != nil && info.ModTime().Equal(c.modTime) && info.Size() == c.size {
		f := c.file
		l.mu.Unlock()
		return f
	}
	l.mu.Unlock()

	f := l.read(layer, info, statErr)

	l.mu.Lock()
	defer l.mu.Unlock()
	if statErr == nil && c.exists && c.file != nil && info.ModTime().Equal(c.modTime) && info.Size() == c.size {
		return c.file // another session loaded the same version meanwhile
	}
	var before []string
	if c.file != nil {
		before = c.file.Problems
	}
	c.checked, c.exists, c.file, c.modTime, c.size = true, true, f, time.Time{}, -1
	if statErr == nil {
		c.modTime, c.size = info.ModTime(), info.Size()
	}
	if !slices.Equal(before, f.Problems) {
		for _, p := range f.Problems {
			l.log.Error(l.title+" hooks: "+p, "path", layer.Path)
		}
		for _, w := range f.Warnings {
			l.log.Warn(l.title+" hooks: "+w, "path", layer.Path)
		}
	}
	l.log.Debug(l.title+" hooks loaded", "path", layer.Path, "hooks", len(f.All))
	return f
}

// read reads and parses the file of layer; a file that cannot be read
// has that problem and no hooks.
func (l *loader[H]) read(layer Layer, info os.FileInfo, statErr error) *File[H] {
	err := statErr
	if err == nil && info.IsDir() {
		err = errors.New("is a directory")
	}
	var data []byte
	if err == nil {
		data, err = trust.ReadHookFile(layer.Path, layer.Project)
	}
	if err != nil {
		return &File[H]{Problems: []string{fmt.Sprintf("%s: cannot read: %v; its hooks do not run", layer.Path, err)}}
	}
	return l.parse(layer, data)
}

func (l *loader[H]) logMissing(layer Layer) {
	if layer.Explicit {
		l.log.Warn(l.title+" hooks: hook file not found; no "+l.title+" hooks run", "path", layer.Path)
		return
	}
	l.log.Debug(l.title+" hooks: no hook file", "path", layer.Path)
}

// seen returns the files loaded so far that exist, in first-seen order,
// with their layers.
func (l *loader[H]) seen() ([]Layer, []*File[H]) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var layers []Layer
	var files []*File[H]
	for _, p := range l.order {
		if c := l.entries[p]; c.exists && c.file != nil {
			layers = append(layers, c.layer)
			files = append(files, c.file)
		}
	}
	return layers, files
}

// declares reports whether the file at path, as last loaded, declares
// hooks.
func (l *loader[H]) declares(path string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.entries[path]
	return c != nil && c.exists && c.file != nil && c.file.Declares
}
