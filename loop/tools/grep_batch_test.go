package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The walk hands the searchers a directory's files in batches (at most
// grepBatchFiles, cut again where a subdirectory sorts between them),
// each holding the directory open: every file is searched exactly once,
// the answer is in path order, and no directory is left open, also when
// the search is cancelled.
func TestGrepBatchesSearchEveryFileOnceAndCloseTheirDirectories(t *testing.T) {
	env := newEnv(t)
	var want []string
	for i := range 2*grepBatchFiles + 10 {
		rel := fmt.Sprintf("big/f%03d.txt", i)
		content := "nothing\n"
		if i%3 == 0 {
			content = "a needle\n"
			want = append(want, rel)
		}
		writeFile(t, filepath.Join(env.Cwd, rel), content)
	}
	// Subdirectories that sort between the files of big/.
	for _, rel := range []string{"big/f050.d/inner.txt", "big/f150.d/deeper/inner.txt"} {
		writeFile(t, filepath.Join(env.Cwd, rel), "needle\n")
		want = append(want, rel)
	}
	writeFile(t, filepath.Join(env.Cwd, "top.txt"), "needle\n")
	want = append(want, "top.txt")
	slices.Sort(want)

	before := openFDs(t)
	res := run(t, env, "Grep", map[string]any{"pattern": "needle", "head_limit": 1000})
	got := strings.Split(strings.TrimSpace(res.Text), "\n")
	if res.IsError || len(got) == 0 || !slices.Equal(got[1:], want) {
		t.Fatalf("got:\n%s\nwant %d files in path order", res.Text, len(want))
	}
	res = run(t, env, "Grep", map[string]any{"pattern": "needle", "output_mode": "count", "head_limit": 1000})
	if !strings.Contains(res.Text, fmt.Sprintf("Found %d matching lines in %d files", len(want), len(want))) {
		t.Errorf("count mode:\n%s", res.Text)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := runCtx(t, ctx, env, "Grep", map[string]any{"pattern": "needle"}); !res.IsError {
		t.Errorf("a cancelled Grep answered %q", res.Text)
	}
	if after := openFDs(t); after > before {
		t.Errorf("%d descriptors open after the searches, %d before", after, before)
	}
}

// openFDs counts the process's open descriptors (Linux); the test is
// skipped elsewhere.
func openFDs(t *testing.T) int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("counts descriptors in /proc")
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	return len(entries)
}
