package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// newEnv returns an Env whose Cwd and only root is a fresh directory.
func newEnv(t *testing.T) *Env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &Env{SessionID: "s1", Cwd: dir, Roots: []string{dir}}
}

// run calls the named built-in tool with input marshalled to JSON (a
// string or json.RawMessage is sent as is).
func run(t *testing.T, env *Env, name string, input any) Result {
	t.Helper()
	return runCtx(t, context.Background(), env, name, input)
}

func runCtx(t *testing.T, ctx context.Context, env *Env, name string, input any) Result {
	t.Helper()
	tool, ok := ByName(Builtin(), name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return tool.Run(ctx, env, raw(t, input))
}

func raw(t *testing.T, input any) json.RawMessage {
	t.Helper()
	switch v := input.(type) {
	case string:
		return json.RawMessage(v)
	case json.RawMessage:
		return v
	}
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ptr[T any](v T) *T { return &v }

// fakeFS is an in-memory FileSystem that records its calls.
type fakeFS struct {
	mu    sync.Mutex
	files map[string]string
	calls []string
}

func (f *fakeFS) ReadTextFile(_ context.Context, path string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "read "+path)
	s, ok := f.files[path]
	if !ok {
		return "", errors.New("Resource not found")
	}
	return s, nil
}

func (f *fakeFS) WriteTextFile(_ context.Context, path, content string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "write "+path)
	if f.files == nil {
		f.files = map[string]string{}
	}
	f.files[path] = content
	return nil
}

// fakeTerminals records its calls. WaitForExit returns exit unless block
// is set, in which case it waits for its context to end.
type fakeTerminals struct {
	mu        sync.Mutex
	calls     []string
	exit      ExitStatus
	block     bool
	output    string
	truncated bool
	// outputExit is the exit status terminal/output reports (nil: still
	// running).
	outputExit *ExitStatus
	// releaseCtxErr is the error of the context Release was called with.
	releaseCtxErr      error
	releaseHasDeadline bool
}

func (f *fakeTerminals) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeTerminals) Create(_ context.Context, command string, args []string, cwd string, limit int) (string, error) {
	f.record("create %s %q %s %d", command, args, cwd, limit)
	return "term-1", nil
}

func (f *fakeTerminals) Output(_ context.Context, id string) (string, bool, *ExitStatus, error) {
	f.record("output %s", id)
	return f.output, f.truncated, f.outputExit, nil
}

func (f *fakeTerminals) WaitForExit(ctx context.Context, id string) (ExitStatus, error) {
	f.record("wait %s", id)
	if f.block {
		<-ctx.Done()
		return ExitStatus{}, ctx.Err()
	}
	return f.exit, nil
}

func (f *fakeTerminals) Kill(_ context.Context, id string) error {
	f.record("kill %s", id)
	return nil
}

func (f *fakeTerminals) Release(ctx context.Context, id string) error {
	f.record("release %s", id)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releaseCtxErr = ctx.Err()
	_, f.releaseHasDeadline = ctx.Deadline()
	return nil
}
