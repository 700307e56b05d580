package tools

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"

	"github.com/cordis-agent/cordis/internal/confine"
)

// compareChunk is how much of the old file a Write compares at a time.
const compareChunk = 64 << 10

// writeDiffs is what a Write of content to path shows the editor, read
// before the file is written: the whole old and new text of a small file,
// nothing old for a new one, and otherwise the one region between the
// longest common prefix and suffix, found by streaming the old file from
// both ends, so that the old file is never held whole. existed reports
// whether the file was there. A file missing on the local disk may still
// be an unsaved buffer of the editor: askEditor asks it then (Run does; a
// preview does not, as an editor shows a failed read as an error).
func writeDiffs(ctx context.Context, env *Env, dirs *confine.Dirs, path, content string, askEditor bool) (diffs []Diff, existed bool, err error) {
	fi, err := dirs.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if askEditor && env.FS != nil {
			if old, err := readText(ctx, env, dirs, path, wholeDiffMaxBytes); err == nil {
				return []Diff{{Path: path, OldText: &old, NewText: content}}, true, nil
			}
		}
		text, cut := cutLines(content, diffMaxBytes)
		d := elided(path, "", 0, text, cut)
		d.OldText = nil
		return []Diff{d}, false, nil
	case err != nil:
		return nil, false, err
	}
	if err := confine.CheckRegular(path, fi); err != nil {
		return nil, true, err
	}
	if wholeDiff(fi.Size(), int64(len(content))) {
		old, err := readText(ctx, env, dirs, path, wholeDiffMaxBytes)
		if err != nil {
			return nil, true, err
		}
		return []Diff{{Path: path, OldText: &old, NewText: content}}, true, nil
	}
	d, err := streamedDiff(ctx, dirs, path, content)
	if err != nil {
		return nil, true, err
	}
	return []Diff{d}, true, nil
}

// streamedDiff compares the file at path (on the local disk, which the
// editor shares) with content from both ends and returns the region in
// between, with context lines, cut to diffMaxBytes.
func streamedDiff(ctx context.Context, dirs *confine.Dirs, path, content string) (Diff, error) {
	at, err := dirs.Locate(path)
	if err != nil {
		return Diff{}, err
	}
	f, err := at.Open()
	if err != nil {
		return Diff{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Diff{}, err
	}
	size := fi.Size()
	buf := make([]byte, compareChunk)
	prefix, err := commonPrefix(ctx, f, content, buf)
	if err != nil {
		return Diff{}, err
	}
	suffix, err := commonSuffix(ctx, f, size, prefix, content, buf)
	if err != nil {
		return Diff{}, err
	}
	// The context lies in the common parts, which content has too.
	start := lineStart(content, prefix, hunkContext)
	newEnd := lineEnd(content, len(content)-suffix, hunkContext)
	oldEnd := size - int64(len(content)-newEnd)
	share := diffMaxBytes / 2
	oldText, oldCut, err := readRegion(ctx, f, int64(start), oldEnd, share, buf)
	if err != nil {
		return Diff{}, err
	}
	newText, newCut := cutLines(content[start:newEnd], share)
	return elided(path, oldText, oldCut, newText, newCut), nil
}

// commonPrefix is the length of the longest common prefix of the file
// (read from its start) and content.
func commonPrefix(ctx context.Context, f io.ReaderAt, content string, buf []byte) (int, error) {
	n := 0
	for n < len(content) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		m, err := f.ReadAt(buf[:min(len(buf), len(content)-n)], int64(n))
		for i := range m {
			if buf[i] != content[n+i] {
				return n + i, nil
			}
		}
		n += m
		if err == io.EOF || m == 0 {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// commonSuffix is the length of the longest common suffix of the file of
// size bytes (read backwards from its end) and content, neither reaching
// into their common prefix of prefix bytes.
func commonSuffix(ctx context.Context, f io.ReaderAt, size int64, prefix int, content string, buf []byte) (int, error) {
	limit := min(int64(len(content)-prefix), size-int64(prefix))
	n := int64(0)
	for n < limit {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		chunk := min(int64(len(buf)), limit-n)
		m, err := f.ReadAt(buf[:chunk], size-n-chunk)
		if int64(m) < chunk {
			return 0, err
		}
		// buf[chunk-1] is the byte n from the file's end.
		for i := int64(0); i < chunk; i++ {
			if buf[chunk-1-i] != content[int64(len(content))-1-n-i] {
				return int(n + i), nil
			}
		}
		n += chunk
	}
	return int(n), nil
}

// readRegion reads bytes [from, to) of the file: the whole lines of it
// that fit in max bytes, and the number of lines left out, counted by
// streaming the rest.
func readRegion(ctx context.Context, f io.ReaderAt, from, to int64, max int, buf []byte) (string, int, error) {
	if to-from <= int64(max) {
		b := make([]byte, to-from)
		if _, err := f.ReadAt(b, from); err != nil && err != io.EOF {
			return "", 0, err
		}
		return string(b), 0, nil
	}
	head := make([]byte, max)
	if _, err := f.ReadAt(head, from); err != nil && err != io.EOF {
		return "", 0, err
	}
	keep := bytes.LastIndexByte(head, '\n') + 1
	lines, last := 0, byte('\n')
	for pos := from + int64(keep); pos < to; {
		if err := ctx.Err(); err != nil {
			return "", 0, err
		}
		m, err := f.ReadAt(buf[:min(int64(len(buf)), to-pos)], pos)
		lines += bytes.Count(buf[:m], []byte{'\n'})
		if m > 0 {
			last = buf[m-1]
		}
		pos += int64(m)
		if m == 0 || err != nil && err != io.EOF {
			break
		}
	}
	if last != '\n' {
		lines++
	}
	return string(head[:keep]), lines, nil
}
