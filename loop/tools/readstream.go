package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// readBufferBytes is the buffer a Read streams a file through: a Read of
// a window of any file costs about this much memory, plus what it shows.
const readBufferBytes = 64 << 10

// ctxReader fails its reads once ctx is done, so that streaming a large
// file stops when the call is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// lineWindow renders lines [offset, offset+limit) of what br yields like
// cat -n: the line number right-aligned in six columns, a tab, the line.
// Notes about anything left out follow a blank line. Only the lines shown
// are held; the others are counted as they stream past.
func lineWindow(br *bufio.Reader, path string, offset, limit int) (string, error) {
	return window(br, path, offset, limit, true)
}

// window is lineWindow; without wholeFile br holds only part of the file
// after the window (an editor's line/limit answer), so the paging note
// does not claim a total.
func window(br *bufio.Reader, path string, offset, limit int, wholeFile bool) (string, error) {
	if _, err := br.Peek(1); err == io.EOF {
		return fmt.Sprintf("(%s exists but is empty)", path), nil
	}
	skipped, err := skipLines(br, offset-1)
	if err != nil {
		return "", err
	}
	if _, err := br.Peek(1); skipped < offset-1 || err == io.EOF {
		return fmt.Sprintf("(%s has %s; offset %d is past the end)", path, plural(skipped, "line", "lines"), offset), nil
	}
	var b strings.Builder
	cutLines, last := 0, offset-1
	for last < offset-1+limit && b.Len() < readMaxBytes {
		line, cut, err := readLine(br, readMaxLineChars*utf8.UTFMax)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		if cut || utf8.RuneCount(line) > readMaxLineChars {
			line = append(truncateRunes(line, readMaxLineChars), "… [line truncated]"...)
			cutLines++
		}
		if last > offset-1 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\t%s", last+1, line)
		last++
	}
	rest, counted, err := countRestLines(br, restCountBytes)
	if err != nil {
		return "", err
	}
	var notes []string
	switch total := last + rest; {
	case last < total && wholeFile && counted:
		notes = append(notes, fmt.Sprintf("Showing lines %d-%d of %d. Use offset and limit to read more.", offset, last, total))
	case last < total && wholeFile:
		notes = append(notes, fmt.Sprintf("Showing lines %d-%d; the file goes on for more than %d MiB after them (lines not counted). Use offset and limit to read more, or Grep to find what you need in it.",
			offset, last, restCountBytes>>20))
	case last < total:
		notes = append(notes, fmt.Sprintf("Showing lines %d-%d; the file goes on. Use offset and limit to read more.", offset, last))
	}
	if cutLines > 0 {
		verb := "were"
		if cutLines == 1 {
			verb = "was"
		}
		notes = append(notes, fmt.Sprintf("%s longer than %d characters %s truncated.",
			plural(cutLines, "line", "lines"), readMaxLineChars, verb))
	}
	if len(notes) > 0 {
		b.WriteString("\n\n(" + strings.Join(notes, " ") + ")")
	}
	return b.String(), nil
}

// skipLines reads past n lines and returns how many there were.
func skipLines(br *bufio.Reader, n int) (int, error) {
	done, partial := 0, false
	for done < n {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			done, partial = done+1, false
		case errors.Is(err, bufio.ErrBufferFull):
			partial = true // the same line goes on
		case err == io.EOF:
			if partial || len(chunk) > 0 {
				done++
			}
			return done, nil
		default:
			return done, err
		}
	}
	return done, nil
}

// readLine returns the next line without its line ending, at most keep
// bytes of it (cut reports that more were dropped); io.EOF when there is
// none.
func readLine(br *bufio.Reader, keep int) (line []byte, cut bool, err error) {
	started := false
	for {
		chunk, err := br.ReadSlice('\n')
		started = started || len(chunk) > 0
		// Two more bytes than kept, for the line ending trimmed below.
		room := max(keep+2-len(line), 0)
		if len(chunk) > room {
			chunk, cut = chunk[:room], true
		}
		line = append(line, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil, err == io.EOF && started:
			line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			if len(line) > keep {
				line, cut = line[:keep], true
			}
			return line, cut, nil
		}
		return nil, false, err
	}
}

// restCountBytes is how far past the window a Read counts lines to give
// the file's total. A longer rest is not read at all: the note then says
// the file goes on, so a Read of the head of a huge file (a log) costs
// what head does, not a scan of the whole file.
const restCountBytes = 1 << 20

// countRestLines counts the lines left in br (a last line without a
// newline counts too), reading at most limit bytes: past that it stops,
// with counted false and n the lines seen (at least 1).
func countRestLines(br *bufio.Reader, limit int) (n int, counted bool, err error) {
	last := byte('\n')
	for read := 0; ; {
		chunk, err := br.Peek(min(br.Size(), limit-read+1))
		if len(chunk) > limit-read {
			// More than limit bytes are left: the total is not counted.
			return n + max(bytes.Count(chunk, []byte{'\n'}), 1), false, nil
		}
		if len(chunk) > 0 {
			n += bytes.Count(chunk, []byte{'\n'})
			last = chunk[len(chunk)-1]
			read += len(chunk)
			br.Discard(len(chunk))
		}
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return 0, false, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, true, nil
}

// truncateRunes is the first n runes of b.
func truncateRunes(b []byte, n int) []byte {
	for i := range string(b) {
		if n == 0 {
			return b[:i]
		}
		n--
	}
	return b
}
