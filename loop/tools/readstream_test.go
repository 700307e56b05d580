package tools

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// wholeWindow is the window Read showed when it loaded files whole: the
// reference the streaming reader must agree with.
func wholeWindow(path, content string, offset, limit int) string {
	if content == "" {
		return fmt.Sprintf("(%s exists but is empty)", path)
	}
	lines := strings.Split(content, "\n")
	if strings.HasSuffix(content, "\n") {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if offset > total {
		return fmt.Sprintf("(%s has %s; offset %d is past the end)", path, plural(total, "line", "lines"), offset)
	}
	end := min(total, offset-1+limit)
	var b strings.Builder
	cut, last := 0, offset-1
	for i := offset - 1; i < end && b.Len() < readMaxBytes; i++ {
		line := strings.TrimSuffix(lines[i], "\r")
		if utf8.RuneCountInString(line) > readMaxLineChars {
			line = string([]rune(line)[:readMaxLineChars]) + "… [line truncated]"
			cut++
		}
		if i > offset-1 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\t%s", i+1, line)
		last = i + 1
	}
	var notes []string
	if last < total {
		notes = append(notes, fmt.Sprintf("Showing lines %d-%d of %d. Use offset and limit to read more.", offset, last, total))
	}
	if cut > 0 {
		verb := "were"
		if cut == 1 {
			verb = "was"
		}
		notes = append(notes, fmt.Sprintf("%s longer than %d characters %s truncated.", plural(cut, "line", "lines"), readMaxLineChars, verb))
	}
	if len(notes) > 0 {
		b.WriteString("\n\n(" + strings.Join(notes, " ") + ")")
	}
	return b.String()
}

// The streaming reader shows exactly what a whole-file read showed, for
// any window, with CRLF endings, long lines (longer than its buffer too),
// multi-byte characters and a missing final newline.
func TestLineWindowAgreesWithWholeRead(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "é", "\r", "\t", " word", "€€", "x"}
	for i := range 400 {
		var b strings.Builder
		for range r.IntN(40) {
			n := r.IntN(12)
			switch r.IntN(12) {
			case 0:
				n = 1990 + r.IntN(20)
			case 1:
				n = 30000 + r.IntN(70000)
			}
			for range n {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			b.WriteString([]string{"\n", "\r\n"}[r.IntN(2)])
		}
		content := b.String()
		if r.IntN(3) == 0 {
			content = strings.TrimRight(content, "\r\n")
		}
		offset, limit := 1+r.IntN(45), 1+r.IntN(50)
		got, err := lineWindow(bufio.NewReaderSize(strings.NewReader(content), 16), "f", offset, limit)
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeWindow("f", content, offset, limit); got != want {
			t.Fatalf("case %d (offset %d, limit %d):\ngot  %.300q\nwant %.300q", i, offset, limit, got, want)
		}
	}
}

// A window far into a file larger than any whole-file limit is read by
// streaming: no refusal, the right lines, the total counted when the rest
// of the file is short; a default Read of it says the file goes on
// without counting 70 MB of lines.
func TestReadWindowOfHugeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 70 MB file")
	}
	env := newEnv(t)
	p := filepath.Join(env.Cwd, "huge.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	const lines = 1_300_000 // 54 bytes each: about 70 MB
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(w, "%08d this is a line of a log that is very large!!!\n", i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	res := run(t, env, "Read", map[string]any{"file_path": p, "offset": 1_290_000, "limit": 2})
	want := "1290000\t01290000 this is a line of a log that is very large!!!\n1290001\t01290001 this is a line of a log that is very large!!!\n\n(Showing lines 1290000-1290001 of 1300000. Use offset and limit to read more.)"
	if res.IsError || res.Text != want {
		t.Fatalf("%+v", res)
	}
	res = run(t, env, "Read", map[string]any{"file_path": p})
	if res.IsError || !strings.HasPrefix(res.Text, "     1\t00000001 this") ||
		!strings.HasSuffix(res.Text, "(Showing lines 1-2000; the file goes on for more than 1 MiB after them (lines not counted). Use offset and limit to read more, or Grep to find what you need in it.)") {
		t.Fatalf("default read: %.200q … %.200q", res.Text, res.Text[max(0, len(res.Text)-200):])
	}
}

// A cancelled call stops streaming and says so.
func TestReadHonoursCancel(t *testing.T) {
	env := newEnv(t)
	p := filepath.Join(env.Cwd, "a.txt")
	writeFile(t, p, strings.Repeat("line\n", 100000))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := runCtx(t, ctx, env, "Read", map[string]any{"file_path": p})
	if !res.IsError || !strings.Contains(res.Text, "cancelled") {
		t.Fatalf("%+v", res)
	}
}

// countingReader yields n bytes of numbered lines without holding them,
// and counts what was read.
type countingReader struct {
	n, read int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= c.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), c.n-c.read)]
	for i := range p {
		p[i] = "a line of a generated file\n"[(c.read+int64(i))%27]
	}
	c.read += int64(len(p))
	return len(p), nil
}

// TestDefaultReadOfHugeFileReadsItsHead: the first window of a 1 GiB
// file reads the window and at most restCountBytes (and a buffer) past
// it, and says the file goes on; a rest shorter than that is counted.
func TestDefaultReadOfHugeFileReadsItsHead(t *testing.T) {
	huge := &countingReader{n: 1 << 30}
	got, err := lineWindow(bufio.NewReaderSize(huge, readBufferBytes), "huge.log", 1, readDefaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	if window := int64(readDefaultLimit * 27); huge.read > window+restCountBytes+2*readBufferBytes {
		t.Errorf("read %d bytes for a window of %d", huge.read, window)
	}
	if !strings.HasPrefix(got, "     1\ta line of a generated file\n") || !strings.Contains(got, "  2000\ta line") ||
		!strings.HasSuffix(got, "(Showing lines 1-2000; the file goes on for more than 1 MiB after them (lines not counted). Use offset and limit to read more, or Grep to find what you need in it.)") {
		t.Errorf("window: %.80q … %.300q", got, got[max(0, len(got)-300):])
	}

	short := &countingReader{n: 27 * (readDefaultLimit + 1000)}
	got, err = lineWindow(bufio.NewReaderSize(short, readBufferBytes), "short.log", 1, readDefaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "(Showing lines 1-2000 of 3000. Use offset and limit to read more.)") {
		t.Errorf("short file: %.300q", got[max(0, len(got)-300):])
	}
}
