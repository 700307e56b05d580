package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// applyHunks rebuilds the new text from old and the hunks of a change.
func applyHunks(old string, hs []hunk) string {
	var b strings.Builder
	pos := 0
	for _, h := range hs {
		b.WriteString(old[pos:h.oldStart])
		b.WriteString(h.newText)
		pos = h.oldEnd
	}
	b.WriteString(old[pos:])
	return b.String()
}

// randomText is n lines of a few words each, some of them "needle".
func randomText(r *rand.Rand, n int) string {
	words := []string{"alpha", "beta", "needle", "gamma", "delta", "x"}
	var b strings.Builder
	for range n {
		for k := range 1 + r.IntN(4) {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		b.WriteByte('\n')
	}
	if r.IntN(2) == 0 { // sometimes no final newline
		return strings.TrimSuffix(b.String(), "\n")
	}
	return b.String()
}

// The hunks of an edit apply back to the original to give the edited
// file, start and end on whole lines, and keep context around each change.
func TestEditHunksApplyBack(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		old := randomText(r, 1+r.IntN(80))
		oldS := []string{"needle", "needle\nalpha", "a", "x\n"}[r.IntN(4)]
		newS := []string{"", "pin", "pin\npin\npin\n", "needle needle"}[r.IntN(4)]
		if !strings.Contains(old, oldS) {
			continue
		}
		ed, err := applyEdit(old, EditInput{OldString: oldS, NewString: newS, ReplaceAll: true}, "f")
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.ReplaceAll(old, oldS, newS); ed.updated != want {
			t.Fatalf("case %d: updated %q, want %q", i, ed.updated, want)
		}
		hs, total := editHunks(old, ed.reps)
		if total != len(hs) {
			t.Fatalf("case %d: %d of %d hunks built for a small file", i, len(hs), total)
		}
		if got := applyHunks(old, hs); got != ed.updated {
			t.Fatalf("case %d: hunks of %q -> %q give %q, want %q", i, oldS, newS, got, ed.updated)
		}
		for _, h := range hs {
			if h.oldStart > 0 && old[h.oldStart-1] != '\n' || h.oldEnd < len(old) && old[h.oldEnd-1] != '\n' {
				t.Fatalf("case %d: hunk [%d,%d) does not cover whole lines of %q", i, h.oldStart, h.oldEnd, old)
			}
		}
		for k := 1; k < len(hs); k++ {
			if hs[k].oldStart <= hs[k-1].oldEnd-1 {
				t.Fatalf("case %d: hunks overlap: %+v", i, hs)
			}
		}
	}
}

func TestEditHunksKeepContext(t *testing.T) {
	var lines []string
	for i := range 20 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	old := strings.Join(lines, "\n") + "\n"
	ed, err := applyEdit(old, EditInput{OldString: "line 10\n", NewString: "ten\n"}, "f")
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := editHunks(old, ed.reps)
	want := "line 7\nline 8\nline 9\nline 10\nline 11\nline 12\nline 13\n"
	if len(hs) != 1 || old[hs[0].oldStart:hs[0].oldEnd] != want || hs[0].newText != strings.Replace(want, "line 10", "ten", 1) {
		t.Fatalf("hunks %+v, old region %q", hs, old[hs[0].oldStart:hs[0].oldEnd])
	}
}

// bigText is a text file of about size bytes, numbered lines.
func bigText(size int) string {
	var b strings.Builder
	b.Grow(size + 64)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "line %d of a large file, padded to look like code;\n", i)
	}
	return b.String()
}

// An edit or a write of a 10 MB file shows the editor hunks, not the
// file: the diff content (which is also what the session log keeps) stays
// far below 256 KiB, and still holds the change.
func TestLargeFileDiffsAreBounded(t *testing.T) {
	env := newEnv(t)
	p := filepath.Join(env.Cwd, "big.txt")
	content := bigText(10 << 20)
	writeFile(t, p, content)

	one := run(t, env, "Edit", map[string]any{"file_path": p, "old_string": "line 70000 of", "new_string": "LINE SEVENTY THOUSAND of"})
	every := run(t, env, "Edit", map[string]any{"file_path": p, "old_string": "padded", "new_string": "filled", "replace_all": true})
	rewritten := strings.Replace(readFile(t, p), "line 123456 of", "changed", 1)
	write := run(t, env, "Write", map[string]any{"file_path": p, "content": rewritten})
	for name, res := range map[string]Result{"one edit": one, "replace_all": every, "write": write} {
		if res.IsError {
			t.Fatalf("%s: %s", name, res.Text)
		}
		b, _ := json.Marshal(res.Diffs)
		if len(b) > 256<<10 || len(b) == 0 {
			t.Errorf("%s: diff content of %d bytes", name, len(b))
		}
	}
	if d := one.Diffs; len(d) != 1 || !strings.Contains(d[0].NewText, "LINE SEVENTY THOUSAND") || !strings.Contains(*d[0].OldText, "line 70000 of") {
		t.Errorf("one edit: %+v", d)
	}
	if d := write.Diffs; len(d) != 1 || strings.Count(d[0].NewText, "\n") != 7 || !strings.Contains(d[0].NewText, "changed") || !strings.Contains(*d[0].OldText, "line 123456 of") {
		t.Errorf("write: %+v", d)
	}
	// Every line changes: one hunk, cut.
	if d := every.Diffs; len(d) != 1 || !strings.HasSuffix(d[0].NewText, "more lines of the new one are not shown …]\n") {
		t.Errorf("replace_all does not say lines were left out: %d diffs", len(d))
	}
	if got := readFile(t, p); got != rewritten {
		t.Errorf("the file was not written as asked")
	}
}

// A Write's streamed comparison finds the one changed region wherever it
// lies: the region applies back to the old file to give the new one.
func TestStreamedWriteDiffAppliesBack(t *testing.T) {
	env := newEnv(t)
	p := filepath.Join(env.Cwd, "f.txt")
	base := bigText(300 << 10)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 40 {
		old := base
		from := r.IntN(len(old))
		to := min(len(old), from+r.IntN(2000))
		content := old[:from] + strings.Repeat("new\n", r.IntN(5)) + old[to:]
		if i%5 == 0 {
			content = old[:len(old)-r.IntN(3000)] // truncated near its end
		}
		if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs := env.confined()
		d, err := streamedDiff(context.Background(), dirs, p, content)
		dirs.Close()
		if err != nil {
			t.Fatal(err)
		}
		at := strings.Index(old, *d.OldText)
		if at < 0 || strings.Contains(d.NewText, "not shown") {
			t.Fatalf("case %d: old region not found or cut: %q", i, *d.OldText)
		}
		if got := old[:at] + d.NewText + old[at+len(*d.OldText):]; got != content {
			t.Fatalf("case %d: the region [%d,%d) does not apply back", i, from, to)
		}
	}
}

// Edit refuses a file too large to edit safely, saying so, before it
// reads it.
func TestEditRefusesHugeFile(t *testing.T) {
	env := newEnv(t)
	p := filepath.Join(env.Cwd, "huge.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	res := run(t, env, "Edit", map[string]any{"file_path": p, "old_string": "a", "new_string": "b"})
	if !res.IsError || !strings.Contains(res.Text, "too large to edit safely") {
		t.Fatalf("%+v", res)
	}
}
