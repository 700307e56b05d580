package tools

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// stallingFS is an editor whose fs/write_text_file answers only when
// answer is closed, or never; cancel (when set) runs as the request
// arrives, as a cancel landing while the editor writes.
type stallingFS struct {
	fakeFS
	cancel func()
	answer chan struct{}
}

func (f *stallingFS) WriteTextFile(ctx context.Context, path, content string) error {
	if f.cancel != nil {
		f.cancel()
	}
	select {
	case <-f.answer:
		return f.fakeFS.WriteTextFile(ctx, path, content)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A cancel while the editor writes: an answer that comes within the
// grace is the outcome (the Write succeeded, and says so); an editor that
// never answers leaves the outcome unknown, and the error says that
// instead of "context canceled".
func TestWriteThroughEditorAcrossACancel(t *testing.T) {
	t.Run("answered", func(t *testing.T) {
		env := newEnv(t)
		ctx, cancel := context.WithCancel(context.Background())
		answer := make(chan struct{})
		fs := &stallingFS{answer: answer, cancel: func() { cancel(); close(answer) }}
		env.FS = fs
		path := filepath.Join(env.Cwd, "a.txt")
		res := runCtx(t, ctx, env, "Write", map[string]any{"file_path": path, "content": "x\n"})
		if res.IsError || !strings.HasPrefix(res.Text, "Created ") || fs.files[path] != "x\n" {
			t.Fatalf("Write = %+v; editor files %v", res, fs.files)
		}
	})
	t.Run("never answered", func(t *testing.T) {
		env := newEnv(t)
		ctx, cancel := context.WithCancel(context.Background())
		env.FS = &stallingFS{answer: make(chan struct{}), cancel: cancel}
		path := filepath.Join(env.Cwd, "a.txt")
		res := runCtx(t, ctx, env, "Write", map[string]any{"file_path": path, "content": "x\n"})
		if !res.IsError || !strings.Contains(res.Text, "not known whether "+path+" was changed") {
			t.Fatalf("Write = %+v", res)
		}
	})
	t.Run("cancelled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		fs := &stallingFS{answer: make(chan struct{})}
		if err := writeThroughEditor(ctx, fs, "/p", "x"); !errors.Is(err, context.Canceled) || len(fs.calls) != 0 {
			t.Fatalf("err = %v, calls %v: a cancelled call must not ask the editor", err, fs.calls)
		}
	})
}
