package transcript

import (
	"bytes"
	"io"
	"os"
)

// tailWindow bounds how much of a file's end CompleteTail reads.
const tailWindow = 1 << 20

// CompleteTail prepares an append-only JSONL file for appending after a
// crash: it cuts off a torn last line (the bytes after the last '\n', left
// by a write that did not finish) and returns the complete lines that lie
// wholly within the file's last MiB, oldest first (nil for an empty file),
// and the file's size after the cut. Writers use the lines to carry on
// where the file ends (the last uuid, the last token count).
func CompleteTail(f *os.File) (lines [][]byte, size int64, err error) {
	info, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size = info.Size()
	if size == 0 {
		return nil, 0, nil
	}
	start := max(size-tailWindow, 0)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return nil, 0, err
	}
	if buf[len(buf)-1] != '\n' {
		keep, err := lastLineEnd(f, buf, start)
		if err != nil {
			return nil, 0, err
		}
		if err := f.Truncate(keep); err != nil {
			return nil, 0, err
		}
		return CompleteTail(f) // the file now ends with a whole line, or is empty
	}
	if start > 0 {
		// The window may begin inside a line.
		buf = buf[bytes.IndexByte(buf, '\n')+1:]
	}
	if len(buf) == 0 {
		return nil, size, nil
	}
	return bytes.Split(bytes.TrimRight(buf, "\n"), []byte("\n")), size, nil
}

// lastLineEnd returns the offset just after the file's last '\n' (0 when
// there is none), looking before the window buf (read at start) when a
// torn line is longer than the window.
func lastLineEnd(f *os.File, buf []byte, start int64) (int64, error) {
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		return start + int64(i) + 1, nil
	}
	chunk := make([]byte, 64<<10)
	for end := start; end > 0; {
		from := max(end-int64(len(chunk)), 0)
		part := chunk[:end-from]
		if _, err := f.ReadAt(part, from); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(part, '\n'); i >= 0 {
			return from + int64(i) + 1, nil
		}
		end = from
	}
	return 0, nil
}
