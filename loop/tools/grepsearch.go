package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

const (
	// grepChunkBytes is how much of a file is searched at a time: files
	// stream through a buffer of this size, so a file of any size is
	// searched in bounded memory.
	grepChunkBytes = 256 << 10
	// grepMaxLineBytes is the longest line searched; a file with a longer
	// line is reported as not searched.
	grepMaxLineBytes = 8 << 20
	// grepMaxMultilineBytes is the largest file a multiline search reads
	// (it needs the file whole); a larger one is reported as not searched.
	grepMaxMultilineBytes = 16 << 20
	// grepMaxFileLines bounds the output lines one file contributes in
	// content mode; its further matches are counted.
	grepMaxFileLines = 1000
	grepMaxLineChars = 500
)

// grepSearch is one Grep call's search, shared by its workers.
type grepSearch struct {
	m             *matcher
	multiline     bool
	mode          string
	before, after int
	numbers       bool
	// display names a file as the results show it (relative to the
	// working directory); called only for files that are shown.
	display func(abs string) string
}

// fileHits is what one file contributed.
type fileHits struct {
	abs     string
	path    string // as shown; set once the file is shown
	count   int    // matching lines, or matches in multiline mode
	lines   []string
	skipped string // why the file was not searched; "" when it was
}

// shown is the file's path as the results show it.
func (s *grepSearch) shown(h *fileHits) string {
	if h.path == "" {
		h.path = s.display(h.abs)
	}
	return h.path
}

// errSkip marks a file that could not be searched; its text says why.
type errSkip struct{ why string }

func (e errSkip) Error() string { return e.why }

// searchAll searches the batches of files that arrive on files, a few
// at a time, and returns the files with matches or skipped, sorted by
// path.
func (s *grepSearch) searchAll(ctx context.Context, files <-chan []grepFile) []fileHits {
	workers := min(runtime.GOMAXPROCS(0), 4)
	var mu sync.Mutex
	var out []fileHits
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch grepScratch
			var found []fileHits
			for batch := range files {
				for _, f := range batch {
					if ctx.Err() != nil {
						break // drain
					}
					h := s.searchFile(ctx, f, &scratch)
					if h.count > 0 || h.skipped != "" {
						s.shown(&h)
						found = append(found, h)
					}
				}
				if len(batch) > 0 && batch[0].in != nil {
					batch[0].in.Release()
				}
			}
			mu.Lock()
			out = append(out, found...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.SortFunc(out, func(a, b fileHits) int { return strings.Compare(a.path, b.path) })
	return out
}

// grepScratch is a worker's reusable memory.
type grepScratch struct {
	buf, lowered []byte
}

// open opens file: through its directory's handle, one lookup, or
// through its Path, which follows a symlink that stays inside (the file
// named as the path may be one; the handle follows none).
func (file grepFile) open() (io.ReadCloser, error) {
	if file.in != nil {
		if f, err := file.in.OpenFile(file.name); err == nil {
			return f, nil
		}
		file.at = file.in.Path().Join(file.name)
	}
	return file.at.Open()
}

func (s *grepSearch) searchFile(ctx context.Context, file grepFile, scratch *grepScratch) fileHits {
	h := fileHits{abs: file.abs}
	f, err := file.open()
	if err != nil {
		h.skipped = "cannot be read: " + err.Error()
		return h
	}
	defer f.Close()
	r := ctxReader{ctx, f}
	switch {
	case s.multiline:
		err = s.searchWhole(r, &h)
	case s.mode == "content" && (s.before > 0 || s.after > 0):
		err = s.searchWithContext(r, &h)
	default:
		err = s.searchChunks(r, &h, scratch)
	}
	var skip errSkip
	switch {
	case errors.As(err, &skip):
		h = fileHits{abs: h.abs, path: h.path, skipped: skip.why}
	case err != nil && ctx.Err() == nil:
		h = fileHits{abs: h.abs, path: h.path, skipped: "cannot be read: " + err.Error()}
	}
	return h
}

// searchChunks streams the file through the scratch buffer, a chunk of
// whole lines at a time, and searches each chunk at once.
func (s *grepSearch) searchChunks(r io.Reader, h *fileHits, scratch *grepScratch) error {
	if len(scratch.buf) < grepChunkBytes {
		scratch.buf = make([]byte, grepChunkBytes)
	}
	buf := scratch.buf
	carry, first, start := 0, 1, true
	for {
		n, err := io.ReadFull(r, buf[carry:])
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return err
		}
		data := buf[:carry+n]
		if start {
			if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
				return nil // binary files are skipped, as ripgrep does
			}
			start = false
		}
		end := len(data)
		if !eof {
			end = bytes.LastIndexByte(data, '\n') + 1
			if end == 0 { // one line fills the buffer: grow it
				if len(buf) >= grepMaxLineBytes {
					return errSkip{"has a line longer than " + strconv.Itoa(grepMaxLineBytes>>20) + " MiB"}
				}
				grown := make([]byte, 2*len(buf)) // for this file only
				carry = copy(grown, data)
				buf = grown
				continue
			}
		}
		region := data[:end]
		stop := false
		s.m.scan(region, first, &scratch.lowered, func(n int, line []byte) bool {
			stop = !s.record(h, n, line, ':')
			return !stop
		})
		if stop || eof {
			return nil
		}
		first += bytes.Count(region, []byte{'\n'})
		carry = copy(buf, data[end:])
	}
}

// record adds a matching (sep ':') or context (sep '-') line n to h and
// reports whether the search of the file should go on.
func (s *grepSearch) record(h *fileHits, n int, line []byte, sep byte) bool {
	if sep == ':' {
		h.count++
		if s.mode == "files_with_matches" {
			return false // one match is enough
		}
	}
	if s.mode == "content" && len(h.lines) < grepMaxFileLines {
		h.lines = append(h.lines, s.render(s.shown(h), n, line, sep))
	}
	return true
}

// render is one content line as ripgrep prints it: "path:N:line" for a
// match, "path-N-line" for context.
func (s *grepSearch) render(path string, n int, line []byte, sep byte) string {
	var b strings.Builder
	b.WriteString(path)
	b.WriteByte(sep)
	if s.numbers {
		b.WriteString(strconv.Itoa(n))
		b.WriteByte(sep)
	}
	if utf8.RuneCount(line) > grepMaxLineChars {
		b.Write(truncateRunes(line, grepMaxLineChars))
		b.WriteString("… [line truncated]")
	} else {
		b.Write(line)
	}
	return b.String()
}

// searchWithContext streams the file line by line, keeping the last
// before lines, for content mode with context. Groups that are not
// adjacent are separated by "--", as ripgrep does.
func (s *grepSearch) searchWithContext(r io.Reader, h *fileHits) error {
	br := bufio.NewReaderSize(r, readBufferBytes)
	if head, _ := br.Peek(8000); bytes.IndexByte(head, 0) >= 0 {
		return nil
	}
	var ring [][]byte // the last lines before the current one, up to before
	lastShown, afterLeft := 0, 0
	var lowered []byte
	for n := 1; ; n++ {
		line, cut, err := readLine(br, grepMaxLineBytes)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if cut {
			return errSkip{"has a line longer than " + strconv.Itoa(grepMaxLineBytes>>20) + " MiB"}
		}
		matched := false
		s.m.scan(line, n, &lowered, func(int, []byte) bool { matched = true; return false })
		switch {
		case matched:
			if lastShown > 0 && n-len(ring) > lastShown+1 {
				h.lines = append(h.lines, "--")
			}
			for i, l := range ring {
				s.record(h, n-len(ring)+i, l, '-')
			}
			ring = ring[:0]
			s.record(h, n, line, ':')
			lastShown, afterLeft = n, s.after
		case afterLeft > 0:
			s.record(h, n, line, '-')
			lastShown, afterLeft = n, afterLeft-1
		case s.before > 0:
			if len(ring) == s.before {
				ring = append(ring[:0], ring[1:]...)
			}
			ring = append(ring, bytes.Clone(line))
		}
	}
}

// searchWhole reads the file whole and matches the pattern across lines
// (multiline mode): the count is of matches, the lines shown are every
// line a match touches.
func (s *grepSearch) searchWhole(r io.Reader, h *fileHits) error {
	data, err := io.ReadAll(io.LimitReader(r, grepMaxMultilineBytes+1))
	if err != nil {
		return err
	}
	if len(data) > grepMaxMultilineBytes {
		return errSkip{"is larger than " + strconv.Itoa(grepMaxMultilineBytes>>20) + " MiB, too large for a multiline search"}
	}
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return nil
	}
	starts := []int{0} // starts[i] is the offset of line i+1
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(pos int) int { return sort.SearchInts(starts, pos+1) - 1 }
	shown := -1
	for _, loc := range s.m.line.FindAllIndex(data, -1) {
		h.count++
		if s.mode == "files_with_matches" {
			return nil
		}
		for l := max(lineOf(loc[0]), shown+1); l <= lineOf(max(loc[1]-1, loc[0])); l++ {
			end := len(data)
			if l+1 < len(starts) {
				end = starts[l+1] - 1
			}
			line := bytes.TrimSuffix(bytes.TrimSuffix(data[starts[l]:end], []byte{'\n'}), []byte{'\r'})
			if s.mode == "content" && len(h.lines) < grepMaxFileLines {
				h.lines = append(h.lines, s.render(s.shown(h), l+1, line, ':'))
			}
			shown = l
		}
	}
	return nil
}
