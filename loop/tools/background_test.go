package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

var taskIDPattern = regexp.MustCompile(`ID: (bash_\d+)\.`)

// startBackground runs command with run_in_background and returns its
// task id.
func startBackground(t *testing.T, env *Env, command string) string {
	t.Helper()
	res := run(t, env, "Bash", map[string]any{"command": command, "run_in_background": true})
	m := taskIDPattern.FindStringSubmatch(res.Text)
	if res.IsError || m == nil {
		t.Fatalf("Bash in the background: %+v", res)
	}
	return m[1]
}

// readUntil reads a task's output without blocking until it contains
// want, and returns all that was read. It polls without a deadline of its
// own: the test's timeout is the only bound.
func readUntil(t *testing.T, env *Env, id, want string) string {
	t.Helper()
	var all strings.Builder
	for !strings.Contains(all.String(), want) {
		res := run(t, env, "TaskOutput", map[string]any{"task_id": id, "block": false})
		if res.IsError {
			t.Fatalf("TaskOutput: %s", res.Text)
		}
		all.WriteString(res.Text)
		if strings.Contains(res.Text, "<status>") && !strings.Contains(res.Text, "<status>running") && !strings.Contains(all.String(), want) {
			t.Fatalf("task ended without printing %q: %s", want, all.String())
		}
	}
	return all.String()
}

func groupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// A background command that prints over time: the first read gets what it
// printed so far, the second only what came after, then its end.
func TestBackgroundTaskReadTwice(t *testing.T) {
	env := newEnv(t)
	env.Background = NewBackground()
	defer env.Background.StopAll()
	gate := filepath.Join(env.Cwd, "go-on")
	id := startBackground(t, env, `echo serving on 8080; echo warn >&2; while [ ! -e go-on ]; do sleep 0.01; done; echo request served; exit 3`)

	first := readUntil(t, env, id, "warn")
	if !strings.Contains(first, "serving on 8080") || !strings.Contains(first, "<status>running</status>") {
		t.Errorf("first read = %s", first)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	second := run(t, env, "TaskOutput", map[string]any{"task_id": id, "timeout": 600000})
	if second.IsError || !strings.Contains(second.Text, "request served") || strings.Contains(second.Text, "serving on") {
		t.Errorf("second read has not exactly the new output: %s", second.Text)
	}
	if !strings.Contains(second.Text, "<status>failed: exit status 3</status>") || !strings.Contains(second.Text, "<retrieval_status>success") {
		t.Errorf("second read does not report the exit: %s", second.Text)
	}
	third := run(t, env, "TaskOutput", map[string]any{"task_id": id})
	if !strings.Contains(third.Text, "(no new output)") {
		t.Errorf("third read = %s", third.Text)
	}
	// The older name, with its filter, reads the same task.
	if res := run(t, env, "BashOutput", map[string]any{"bash_id": id, "filter": "["}); !res.IsError {
		t.Errorf("a bad filter was accepted: %s", res.Text)
	}
}

func TestBackgroundTaskStop(t *testing.T) {
	for _, tool := range []string{"TaskStop", "KillShell"} {
		t.Run(tool, func(t *testing.T) {
			env := newEnv(t)
			env.Background = NewBackground()
			defer env.Background.StopAll()
			// The task leaves a child of its own running: the whole
			// group must go.
			id := startBackground(t, env, `sleep 1000 & echo started; wait`)
			readUntil(t, env, id, "started")
			task, err := env.Background.get(id)
			if err != nil {
				t.Fatal(err)
			}
			input := map[string]any{"task_id": id}
			if tool == "KillShell" {
				input = map[string]any{"shell_id": id}
			}
			tl, _ := ByName(Builtin(), tool)
			res := tl.Run(context.Background(), env, raw(t, input))
			if res.IsError || !strings.Contains(res.Text, "Successfully stopped task: "+id) {
				t.Fatalf("%s: %+v", tool, res)
			}
			if groupAlive(task.p.Pid()) {
				t.Errorf("the task's process group is still alive")
			}
			out := run(t, env, "TaskOutput", map[string]any{"task_id": id})
			if !strings.Contains(out.Text, "<status>killed</status>") {
				t.Errorf("after %s: %s", tool, out.Text)
			}
			again := run(t, env, "TaskStop", map[string]any{"task_id": id})
			if again.IsError || !strings.Contains(again.Text, "had already ended") {
				t.Errorf("second stop: %+v", again)
			}
		})
	}
}

// Closing the session (StopAll) kills every task and refuses new ones;
// /status lists them.
func TestBackgroundStopAll(t *testing.T) {
	env := newEnv(t)
	env.Background = NewBackground()
	a := startBackground(t, env, "echo a; sleep 1000")
	b := startBackground(t, env, "echo b; sleep 1000")
	readUntil(t, env, a, "a")
	readUntil(t, env, b, "b")
	status := env.Background.Status()
	if len(status) != 2 || !strings.HasPrefix(status[0], a+" (running, pid ") || !strings.HasSuffix(status[1], "echo b; sleep 1000") {
		t.Errorf("status = %q", status)
	}
	ta, _ := env.Background.get(a)
	tb, _ := env.Background.get(b)
	env.Background.StopAll()
	if groupAlive(ta.p.Pid()) || groupAlive(tb.p.Pid()) {
		t.Errorf("a task survived StopAll")
	}
	res := run(t, env, "Bash", map[string]any{"command": "true", "run_in_background": true})
	if !res.IsError || !strings.Contains(res.Text, "the session is closing") {
		t.Errorf("after StopAll: %+v", res)
	}
}

// Output beyond what is kept is dropped from the start, and a read says
// how much; a read returns at most the output limit, the latest part.
func TestBackgroundOutputCapped(t *testing.T) {
	env := newEnv(t)
	env.Background = &Background{tasks: map[string]*bgTask{}, keep: 1000}
	env.OutputLimit = 300
	defer env.Background.StopAll()
	id := startBackground(t, env, `for i in $(seq 1 500); do echo "line $i"; done`)
	res := run(t, env, "TaskOutput", map[string]any{"task_id": id, "timeout": 600000})
	if !strings.Contains(res.Text, "line 500") || strings.Contains(res.Text, "line 1\n") {
		t.Errorf("read = %s", res.Text)
	}
	if !strings.Contains(res.Text, "earlier bytes of output were dropped") {
		t.Errorf("the read does not say output was dropped: %s", res.Text)
	}
	if len(res.Text) > 600 {
		t.Errorf("the read is %d bytes, over the output limit", len(res.Text))
	}
}

func TestTaskToolErrors(t *testing.T) {
	env := newEnv(t)
	for _, tt := range []struct {
		tool  string
		input map[string]any
		want  string
	}{
		{"TaskOutput", map[string]any{"task_id": "bash_1"}, "background tasks are not available here"},
		{"TaskStop", map[string]any{}, "TaskStop: task_id is required"},
		{"TaskOutput", map[string]any{"task_id": "x", "timeout": -1}, "timeout must not be negative"},
	} {
		if res := run(t, env, tt.tool, tt.input); !res.IsError || !strings.Contains(res.Text, tt.want) {
			t.Errorf("%s %v = %q, want %q", tt.tool, tt.input, res.Text, tt.want)
		}
	}
	env.Background = NewBackground()
	if res := run(t, env, "TaskOutput", map[string]any{"task_id": "bash_9"}); !res.IsError || !strings.Contains(res.Text, "none was started") {
		t.Errorf("unknown task: %q", res.Text)
	}
}

// A blocking read ends when the turn is cancelled, leaving the task running.
func TestTaskOutputCancelled(t *testing.T) {
	env := newEnv(t)
	env.Background = NewBackground()
	defer env.Background.StopAll()
	id := startBackground(t, env, "sleep 1000")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := runCtx(t, ctx, env, "TaskOutput", map[string]any{"task_id": id, "timeout": 600000})
	if !res.IsError || !strings.Contains(res.Text, "still running") {
		t.Errorf("cancelled read: %+v", res)
	}
}
