package codex

import (
	"cmp"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/hooks"
)

// TestGuardThatCouldNotRun: a PreToolUse or PermissionRequest hook that
// times out or whose program is missing is a Failed run, as in Codex (the
// call proceeds), recorded as hook/error, and the user is told which hook
// and what happened; with guardFailure: deny the call is refused. A hook
// of another event that could not run is not a guard.
func TestGuardThatCouldNotRun(t *testing.T) {
	cases := []struct {
		ev      hooks.Event
		command string
		timeout string
		why     string
	}{
		{hooks.PreToolUse, "sleep 30", `, "timeout": 1`, "timed out after 1s"},
		{hooks.PermissionRequest, "/nonexistent/guard.py", "", "its program was not found (exit status 127)"},
	}
	for _, c := range cases {
		for _, policy := range []guard.Policy{"", guard.Proceed, guard.Deny} {
			t.Run(string(c.ev)+"/"+cmp.Or(string(policy), "unset"), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "hooks.json")
				writeFile(t, path, `{"hooks": {"`+string(c.ev)+`": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "`+c.command+`"`+c.timeout+`},
					{"type": "command", "command": "`+emit(t, "sysmsg", string(c.ev))+`"}]}]}}`)
				e := newEnv(t, envOpts{path: path, guardFailure: policy})
				d, failures := e.run(e.baseInput(c.ev))
				if len(d.SystemMessages) != 2 || d.SystemMessages[1] != "note for the user" {
					t.Fatalf("messages %q", d.SystemMessages)
				}
				msg := d.SystemMessages[0]
				head := "The Codex " + string(c.ev) + " hook `" + c.command + "` (" + path + ") could not run: " + c.why + "."
				if !strings.HasPrefix(msg, head) {
					t.Errorf("message %q, want it to start %q", msg, head)
				}
				if policy == guard.Deny {
					if d.Permission != hooks.Deny || !strings.Contains(d.Reason, "could not run ("+c.why+")") || !strings.Contains(msg, "The Bash call is refused (guardFailure: deny)") {
						t.Errorf("guardFailure: deny: %+v", d)
					}
				} else if d.Permission != hooks.NoOpinion || !strings.Contains(msg, "As in Codex, the Bash call goes on as if the hook had not run") {
					t.Errorf("default policy: %+v", d)
				}
				if len(failures) != 1 {
					t.Errorf("hook/error records %q", failures)
				}
			})
		}
	}

	// Not a guard: a UserPromptSubmit hook that could not run stays a
	// plain Failed run.
	path := filepath.Join(t.TempDir(), "hooks.json")
	writeFile(t, path, hooksJSON("UserPromptSubmit", "", "/nonexistent/check.py"))
	e := newEnv(t, envOpts{path: path, guardFailure: guard.Deny})
	d, failures := e.run(e.baseInput(hooks.UserPromptSubmit))
	if d.Block || len(d.SystemMessages) != 0 || !contains(failures, "exit code 127") {
		t.Errorf("UserPromptSubmit: %+v, %q", d, failures)
	}
}

// TestBrokenHookFilesAreReported: a bad matcher, a mistyped field and a
// file that does not parse, in a user or project hooks.json and in a
// config.toml, are shown to the session once (naming the file, the entry
// or the line and column) and listed by Doctor; the good hooks of the
// same file still run.
func TestBrokenHookFilesAreReported(t *testing.T) {
	type shape struct {
		name, content, problem string
		goodRuns               bool
	}
	good := func(t *testing.T) string {
		return `{"type": "command", "command": "` + emit(t, "deny", "PreToolUse") + `"}`
	}
	jsonShapes := func(t *testing.T) []shape {
		return []shape{
			{"bad matcher", `{"hooks": {"PreToolUse": [
				{"matcher": "Bash(", "hooks": [{"type": "command", "command": "exit 2"}]},
				{"matcher": "Bash", "hooks": [` + good(t) + `]}]}}`,
				`hooks.PreToolUse[0]: invalid matcher "Bash("`, true},
			{"mistyped field", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
				{"type": "command", "command": "exit 2", "timeout": "30"},
				` + good(t) + `]}]}}`,
				`hooks.PreToolUse[0].hooks[0]: a handler must be {"type": "command", "command": ...}: "timeout" must be a number; skipped`, true},
			{"trailing comma", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [` + good(t) + `,]}]}}`,
				`not a valid hooks.json: line 1, column `, false},
		}
	}
	tomlShapes := func(t *testing.T) []shape {
		goodTOML := "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ncommand = \"" + emit(t, "deny", "PreToolUse") + "\"\n"
		return []shape{
			{"bad matcher", "[[hooks.PreToolUse]]\nmatcher = \"Bash(\"\n[[hooks.PreToolUse.hooks]]\ncommand = \"exit 2\"\n" + goodTOML,
				`hooks.PreToolUse[0]: invalid matcher "Bash("`, true},
			{"mistyped field", "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ncommand = \"exit 2\"\ntimeout = \"30\"\n" + goodTOML,
				`hooks.PreToolUse[0].hooks[0]: a handler must be a table with type = "command" and command = "...": "timeout" must be a number; skipped`, true},
			{"duplicate key", "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\nmatcher = \"Edit\"\n",
				`: key matcher is already defined (not a valid config.toml)`, false},
		}
	}
	files := []struct {
		name   string
		shapes func(t *testing.T) []shape
		// place writes content where the env's bridge reads it.
		place func(e *env, content string) string
	}{
		{"user hooks.json", jsonShapes, func(e *env, content string) string {
			writeFile(e.t, e.userFile(), content)
			return e.userFile()
		}},
		{"project hooks.json", jsonShapes, func(e *env, content string) string {
			writeFile(e.t, e.projectFile(), content)
			e.trustProject()
			return e.projectFile()
		}},
		{"user config.toml", tomlShapes, func(e *env, content string) string {
			writeFile(e.t, e.userTOML(), "model = \"gpt-5-codex\"\n"+content)
			return e.userTOML()
		}},
		{"project config.toml", tomlShapes, func(e *env, content string) string {
			writeFile(e.t, e.projectTOML(), content)
			e.trustProject()
			return e.projectTOML()
		}},
	}
	for _, f := range files {
		for _, s := range f.shapes(t) {
			t.Run(f.name+"/"+s.name, func(t *testing.T) {
				e := newEnv(t, envOpts{})
				path := f.place(e, s.content)
				d, _ := e.run(e.baseInput(hooks.PreToolUse))
				if s.goodRuns && (d.Permission != hooks.Deny || d.Reason != "no rm please") {
					t.Errorf("the good hook of the file did not decide: %+v", d)
				}
				if len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "cordis found a problem in a Codex hook file: "+path) ||
					!strings.Contains(d.SystemMessages[0], s.problem) {
					t.Fatalf("messages %q, want one naming %s and %q", d.SystemMessages, path, s.problem)
				}
				if located := regexp.MustCompile(regexp.QuoteMeta(path) + `(:\d+:\d+: |: not a valid hooks.json: line \d+, column \d+: )`); !s.goodRuns && !located.MatchString(d.SystemMessages[0]) {
					t.Errorf("no line and column: %q", d.SystemMessages[0])
				}
				// Once per session, again in another.
				if d, _ := e.run(e.baseInput(hooks.PreToolUse)); len(d.SystemMessages) != 0 {
					t.Errorf("second call: %q", d.SystemMessages)
				}
				other := e.baseInput(hooks.PreToolUse)
				other.SessionID = "sess-2"
				if d, _ := e.run(other); len(d.SystemMessages) != 1 {
					t.Errorf("other session: %q", d.SystemMessages)
				}
				var lines []string
				for _, l := range e.bridge.Doctor(e.cwd) {
					if strings.HasPrefix(l, "✗ Codex hooks "+path) && strings.Contains(l, s.problem) {
						lines = append(lines, l)
					}
				}
				if len(lines) != 1 {
					t.Errorf("Doctor = %q, want one line naming the problem", e.bridge.Doctor(e.cwd))
				}
			})
		}
	}
}
