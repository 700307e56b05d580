package codex

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
)

func TestRegistersEverySeam(t *testing.T) {
	e := newEnv(t, envOpts{})
	if diff := cmp.Diff(seams, e.reg.order); diff != "" {
		t.Errorf("registered seams (-want +got):\n%s", diff)
	}
	for _, h := range e.reg.hooks {
		if h.Name() != "codex-test" {
			t.Errorf("hook name %q", h.Name())
		}
	}
}

// TestStdinCwdAndLoginShell: the command runs through `$SHELL -lc` in the
// session cwd and reads Codex's input on stdin.
func TestStdinCwdAndLoginShell(t *testing.T) {
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "shell-args")
	fakeShell := filepath.Join(dir, "fakeshell")
	writeFile(t, fakeShell, "#!/bin/sh\nprintf '%s\\n' \"$1\" > "+argsFile+"\nshift\nexec /bin/sh -c \"$@\"\n")
	if err := os.Chmod(fakeShell, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SHELL", fakeShell)

	out := filepath.Join(dir, "stdin")
	path := filepath.Join(dir, "hooks.json")
	writeFile(t, path, hooksJSON("UserPromptSubmit", "", "sh "+filepath.Join(testdataDir(t), "capture.sh")+" "+out+" 'from capture'"))
	e := newEnv(t, envOpts{path: path, shell: []string{}}) // empty: the default login shell
	d, failures := e.run(e.baseInput(hooks.UserPromptSubmit))
	if len(failures) > 0 {
		t.Fatal(failures)
	}
	if got := strings.Join(d.AdditionalContext, "|"); got != "from capture" {
		t.Errorf("plain stdout context = %q", got)
	}
	args, _ := os.ReadFile(argsFile)
	if string(args) != "-lc\n" {
		t.Errorf("shell invoked with %q, want -lc", args)
	}
	data, _ := os.ReadFile(out)
	stdin, wd, _ := strings.Cut(strings.TrimSuffix(string(data), "\n"), "\n")
	wantStdin := fmt.Sprintf(`{"session_id":"sess-1","transcript_path":%q,"cwd":%q,"hook_event_name":"UserPromptSubmit","model":"claude-test","permission_mode":"default","turn_id":"turn-1","prompt":"hello"}`,
		filepath.Join(e.state, "sessions", "sess-1", "rollout.transcript.jsonl"), e.cwd)
	if stdin != wantStdin {
		t.Errorf("stdin:\n%s\nwant:\n%s", stdin, wantStdin)
	}
	if real, _ := filepath.EvalSymlinks(e.cwd); wd != e.cwd && wd != real {
		t.Errorf("hook ran in %q, want the session cwd %q", wd, e.cwd)
	}
}

func TestMatchers(t *testing.T) {
	cases := []struct {
		matcher string
		values  []string
		want    bool
	}{
		{"", []string{"Bash"}, true},
		{"*", []string{"anything"}, true},
		{"Bash", []string{"Bash"}, true},
		{"Bash", []string{"BashX"}, false}, // exact, not a prefix
		{"bash", []string{"Bash"}, false},  // case-sensitive
		{"Edit|Write", []string{"apply_patch", "Edit", "Write"}, true},
		{"apply_patch", []string{"apply_patch", "Edit", "Write"}, true},
		{"Edit|Write", []string{"Bash"}, false},
		{"^Bash$", []string{"Bash"}, true},
		{"Ba", []string{"Bash"}, false},  // exact name
		{"Ba.*", []string{"Bash"}, true}, // regex, unanchored
		{"sh", []string{"Bash"}, false},  // exact
		{"s.", []string{"Bash"}, true},   // regex matches inside
		{"mcp__memory__.*", []string{"mcp__memory__get"}, true},
		// Hyphens and commas take the regex path in Codex.
		{"code-reviewer", []string{"code-reviewer"}, true},
		{"code-reviewer", []string{"xcode-reviewerx"}, true},
		{"Edit,Write", []string{"Edit"}, false},
		{"startup|resume", []string{"resume"}, true},
	}
	for _, c := range cases {
		m, err := compileMatcher(c.matcher)
		if err != nil {
			t.Fatalf("%q: %v", c.matcher, err)
		}
		if got := m.match(c.values...); got != c.want {
			t.Errorf("matcher %q on %v = %v, want %v", c.matcher, c.values, got, c.want)
		}
	}
	if _, err := compileMatcher("(unclosed"); err == nil {
		t.Error("an invalid regex compiled")
	}
}

// TestMatcherSelection: tool matchers see Codex's names and aliases;
// UserPromptSubmit and Stop ignore matchers; other events match their
// source, trigger or agent type.
func TestMatcherSelection(t *testing.T) {
	cases := []struct {
		event, matcher string
		seam           hooks.Event
		tweak          func(*hooks.Input)
		runs           bool
	}{
		{"PreToolUse", "Bash", hooks.PreToolUse, nil, true},
		{"PreToolUse", "Edit", hooks.PreToolUse, nil, false},
		{"PreToolUse", "Write", hooks.PreToolUse, func(in *hooks.Input) {
			in.ToolName, in.ToolInput = "Edit", json.RawMessage(`{"file_path":"/x/y","old_string":"a","new_string":"b"}`)
		}, true},
		{"PreToolUse", "apply_patch", hooks.PreToolUse, func(in *hooks.Input) {
			in.ToolName, in.ToolInput = "Write", json.RawMessage(`{"file_path":"/x/y","content":"a"}`)
		}, true},
		{"PostToolUse", "Bash", hooks.PostToolUseFailure, nil, true},
		{"UserPromptSubmit", "NeverMatches", hooks.UserPromptSubmit, nil, true},
		{"Stop", "NeverMatches", hooks.Stop, nil, true},
		{"SessionStart", "startup", hooks.SessionStart, nil, true},
		{"SessionStart", "resume|clear", hooks.SessionStart, nil, false},
		{"PreCompact", "auto", hooks.PreCompact, nil, false},
		{"PreCompact", "manual", hooks.PreCompact, nil, true},
		{"SubagentStart", "general-purpose", hooks.SubagentStart, nil, true},
		{"SubagentStop", "explore", hooks.SubagentStop, nil, false},
		{"SessionEnd", "other", hooks.SessionEnd, nil, true},
		{"SessionEnd", "prompt_input_exit", hooks.SessionEnd, nil, false},
	}
	for _, c := range cases {
		t.Run(c.event+"/"+c.matcher, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "hooks.json")
			writeFile(t, path, hooksJSON(c.event, c.matcher, emit(t, "sysmsg", c.event)))
			e := newEnv(t, envOpts{path: path})
			in := e.baseInput(c.seam)
			if c.tweak != nil {
				c.tweak(in)
			}
			d, _ := e.run(in)
			if got := len(d.SystemMessages) == 1; got != c.runs {
				t.Errorf("ran = %v, want %v", got, c.runs)
			}
		})
	}
}

func TestConfigProblems(t *testing.T) {
	f := parseFile("/p/hooks.json", []byte(`{"hooks": {
		"PreToolUse": [
			{"matcher": "(bad", "hooks": [{"type": "command", "command": "a"}]},
			{"matcher": "Bash", "hooks": [
				{"type": "prompt", "prompt": "x"},
				{"type": "command", "command": "  "},
				{"type": "command", "command": "b", "async": true},
				{"type": "command", "command": "c", "timeout_sec": 5},
				{"command": "d", "timeout": 0}
			]}
		],
		"PostCompact": [{"hooks": [{"type": "command", "command": "e"}]}],
		"Interrupt": [{"hooks": [{"type": "command", "command": "e2", "timeout": 9}]}],
		"SessionEnd": [{"hooks": [{"type": "command", "command": "f", "timeout": 60}, {"type": "command", "command": "g"}]}]
	}}`))
	var cmds []string
	for _, h := range f.all {
		cmds = append(cmds, fmt.Sprintf("%s:%s:%s", h.event, h.command, h.timeout))
	}
	if diff := cmp.Diff([]string{"PreToolUse:b:10m0s", "PreToolUse:c:5s", "PreToolUse:d:1s", "PostCompact:e:10m0s", "Interrupt:e2:3s", "SessionEnd:f:3s", "SessionEnd:g:1s"}, cmds); diff != "" {
		t.Errorf("handlers (-want +got):\n%s", diff)
	}
	for _, want := range []string{`invalid matcher "(bad"`, "prompt handlers are not supported", `non-empty "command"`} {
		if !contains(f.problems, want) {
			t.Errorf("problems %q lack %q", f.problems, want)
		}
	}

	for _, bad := range []struct{ data, want string }{
		{`{"hooks": {"PreToolUse": [}`, "line 1, column 28"},
		{`[]`, `top level must be an object`},
		{`{"hooks": []}`, `"hooks" must be an object`},
	} {
		f := parseFile("/p/hooks.json", []byte(bad.data))
		if len(f.all) != 0 || !contains(f.problems, bad.want) || !contains(f.problems, "the file is ignored") {
			t.Errorf("%s: problems %q, handlers %d; want %q and the file ignored", bad.data, f.problems, len(f.all), bad.want)
		}
	}
	if f := parseFile("/p/hooks.json", []byte("  \n")); len(f.problems) != 0 {
		t.Errorf("an empty file is not a problem: %q", f.problems)
	}
}

// TestMalformedFileOthersStillLoad: a broken project file is reported and
// ignored; the user file still runs. A missing file says nothing.
func TestMalformedFileOthersStillLoad(t *testing.T) {
	e := newEnv(t, envOpts{})
	d, _ := e.run(e.baseInput(hooks.UserPromptSubmit))
	if len(d.SystemMessages)+len(d.AdditionalContext) != 0 || len(e.bridge.Problems()) != 0 {
		t.Fatalf("no files: decision %+v, problems %q", d, e.bridge.Problems())
	}
	writeFile(t, e.userFile(), hooksJSON("UserPromptSubmit", "", emit(t, "sysmsg", "UserPromptSubmit")))
	writeFile(t, e.projectFile(), `{"hooks": {"UserPromptSubmit": [`)
	d, _ = e.run(e.baseInput(hooks.UserPromptSubmit))
	problem := trust.ProblemNotice(Dialect, e.projectFile()+": not a valid hooks.json: line 1, column 33: unexpected end of JSON input; the file is ignored")
	if diff := cmp.Diff([]string{problem, "note for the user"}, d.SystemMessages); diff != "" {
		t.Errorf("user hook (-want +got):\n%s", diff)
	}
	if p := e.bridge.Problems(); len(p) != 1 || !strings.Contains(p[0], e.projectFile()) || !strings.Contains(p[0], "the file is ignored") {
		t.Errorf("Problems() = %q", p)
	}
}

// TestResultsInConfigOrder: commands finish in another order but merge in
// configuration order; several Stop block reasons become one continuation
// prompt joined by blank lines; duplicates are not merged.
func TestResultsInConfigOrder(t *testing.T) {
	slow := filepath.Join(testdataDir(t), "slow.sh")
	path := filepath.Join(t.TempDir(), "hooks.json")
	writeFile(t, path, hooksJSON("Stop", "",
		"sh "+slow+" 0.4 first",
		"sh "+slow+" 0 second",
		emit(t, "empty", "Stop"),
		"sh "+slow+" 0 second",
	))
	e := newEnv(t, envOpts{path: path})
	d, failures := e.run(e.baseInput(hooks.Stop))
	if len(failures) > 0 {
		t.Fatal(failures)
	}
	if !d.Block || d.Reason != "first\n\nsecond\n\nsecond" {
		t.Errorf("decision %+v, want a block with reasons in config order, duplicates kept", d)
	}
	// That they ran concurrently is hookproc's TestRunAllRunsInParallel
	// (a barrier that a serial runner cannot pass), not a time bound here.
}

// TestContinueFalseWins: one hook's continue:false beats another's Stop
// block; PreToolUse deny beats another hook's allow.
func TestContinueFalseWins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	writeFile(t, path, `{"hooks": {
		"Stop": [{"hooks": [{"type": "command", "command": "`+emit(t, "block", "Stop")+`"}, {"type": "command", "command": "`+emit(t, "continue-false", "Stop")+`"}]}],
		"PreToolUse": [{"hooks": [{"type": "command", "command": "`+emit(t, "allow-updated", "PreToolUse")+`"}, {"type": "command", "command": "`+emit(t, "deny", "PreToolUse")+`"}, {"type": "command", "command": "`+emit(t, "exit2", "PreToolUse")+`"}]}]
	}}`)
	e := newEnv(t, envOpts{path: path})
	d, _ := e.run(e.baseInput(hooks.Stop))
	if diff := cmp.Diff(hooks.Decision{StopTurn: true, StopReason: "halt now"}, d); diff != "" {
		t.Errorf("Stop (-want +got):\n%s", diff)
	}
	d, _ = e.run(e.baseInput(hooks.PreToolUse))
	if diff := cmp.Diff(hooks.Decision{Permission: hooks.Deny, Reason: "no rm please"}, d); diff != "" {
		t.Errorf("PreToolUse (-want +got):\n%s", diff)
	}
}

func TestTimeoutFailsOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	writeFile(t, path, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "sleep 30", "timeout": 0.2}, {"type": "command", "command": "`+emit(t, "sysmsg", "PreToolUse")+`"}]}]}}`)
	e := newEnv(t, envOpts{path: path})
	start := time.Now()
	d, failures := e.run(e.baseInput(hooks.PreToolUse))
	if !contains(failures, "timed out") || len(d.SystemMessages) != 2 || !strings.Contains(d.SystemMessages[0], "`sleep 30` ("+path+") could not run: timed out") || d.Permission != "" {
		t.Errorf("decision %+v failures %q", d, failures)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the timeout was not enforced")
	}
}

// TestUpdatedInputApplyPatch: a PreToolUse allow with a rewritten patch
// becomes the Edit/Write input cordis runs.
func TestUpdatedInputApplyPatch(t *testing.T) {
	cwd := t.TempDir()
	file := filepath.Join(cwd, "a.txt")
	writeFile(t, file, "one\ntwo\nthree\n")
	mk := func(tool, input string) *toolView {
		return viewTool(&hooks.Input{Event: hooks.PreToolUse, Cwd: cwd, ToolName: tool, ToolUseID: "tu", ToolInput: json.RawMessage(input)}, nil)
	}
	patch := func(body string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"command": "*** Begin Patch\n" + body + "*** End Patch"})
		return b
	}
	edit := mk("Edit", `{"file_path":"`+file+`","old_string":"two","new_string":"2"}`)
	got, err := mapUpdatedInput(edit, patch("*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"file_path":"` + file + `","old_string":"one\ntwo\nthree\n","new_string":"one\nTWO\nthree\n","replace_all":false}`
	if string(got) != want {
		t.Errorf("Edit rewrite:\n%s\nwant\n%s", got, want)
	}
	// The very patch the hook was shown changes nothing.
	var shown map[string]string
	_ = json.Unmarshal(edit.input, &shown)
	same, _ := json.Marshal(shown)
	if got, err := mapUpdatedInput(edit, same); err != nil || string(got) != string(edit.cordisInput) {
		t.Errorf("unchanged patch: %s %v", got, err)
	}
	write := mk("Write", `{"file_path":"`+filepath.Join(cwd, "new.txt")+`","content":"x\n"}`)
	got, err = mapUpdatedInput(write, patch("*** Add File: new.txt\n+y\n+z\n"))
	if err != nil || string(got) != `{"file_path":"`+filepath.Join(cwd, "new.txt")+`","content":"y\nz\n"}` {
		t.Errorf("Write rewrite: %s %v", got, err)
	}
	for _, bad := range []string{
		"*** Update File: other.txt\n@@\n-one\n+1\n",
		"*** Delete File: a.txt\n",
		"*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+1\n",
		"*** Update File: a.txt\n@@\n-missing\n+1\n",
		"*** Add File: a.txt\n+1\n*** Add File: b.txt\n+2\n",
	} {
		if _, err := mapUpdatedInput(edit, patch(bad)); err == nil {
			t.Errorf("patch %q was accepted", bad)
		}
	}
}

// TestPostToolUsePatchFromSnapshot: after an Edit, PostToolUse hooks see
// the patch from the file's content before the call to after it.
func TestPostToolUsePatchFromSnapshot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "post-stdin")
	path := filepath.Join(t.TempDir(), "hooks.json")
	writeFile(t, path, hooksJSON("PostToolUse", "Edit", "sh "+filepath.Join(testdataDir(t), "capture.sh")+" "+out))
	e := newEnv(t, envOpts{path: path})
	file := filepath.Join(e.cwd, "m.txt")
	writeFile(t, file, "alpha\nbeta\nbeta\n")
	input := json.RawMessage(`{"file_path":"` + file + `","old_string":"beta","new_string":"BETA","replace_all":true}`)
	pre := e.baseInput(hooks.PreToolUse)
	pre.ToolName, pre.ToolInput = "Edit", input
	if d, _ := e.run(pre); len(d.SystemMessages) != 0 {
		t.Fatalf("pre: %+v", d)
	}
	writeFile(t, file, "alpha\nBETA\nBETA\n") // the Edit ran
	post := e.baseInput(hooks.PostToolUse)
	post.ToolName, post.ToolInput, post.ToolResponse = "Edit", input, hooks.ToolResponseJSON("ok")
	if _, failures := e.run(post); len(failures) > 0 {
		t.Fatal(failures)
	}
	data, _ := os.ReadFile(out)
	var got struct {
		ToolName  string `json:"tool_name"`
		ToolInput struct {
			Command string `json:"command"`
		} `json:"tool_input"`
		ToolResponse string `json:"tool_response"`
	}
	stdin, _, _ := strings.Cut(string(data), "\n")
	if err := json.Unmarshal([]byte(stdin), &got); err != nil {
		t.Fatal(err)
	}
	want := "*** Begin Patch\n*** Update File: m.txt\n@@\n alpha\n-beta\n-beta\n+BETA\n+BETA\n*** End Patch"
	if got.ToolName != "apply_patch" || got.ToolInput.Command != want || got.ToolResponse != "ok" {
		t.Errorf("PostToolUse input %+v, want patch\n%s", got, want)
	}
	if len(e.bridge.dialect.sessions.m["sess-1"].snapshots) != 0 {
		t.Error("the snapshot was not released")
	}
}

// TestSubagentTypeRemembered: the loop names the agent type only at
// SubagentStart; the bridge supplies it to SubagentStop matchers and input.
func TestSubagentTypeRemembered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	writeFile(t, path, hooksJSON("SubagentStop", "explore", emit(t, "block", "SubagentStop")))
	e := newEnv(t, envOpts{path: path})
	start := e.baseInput(hooks.SubagentStart)
	start.AgentType = "explore"
	e.run(start)
	stop := e.baseInput(hooks.SubagentStop)
	stop.AgentType = ""
	d, _ := e.run(stop)
	if !d.Block || d.Reason != "blocked because" {
		t.Errorf("SubagentStop decision %+v", d)
	}
	if stop.AgentType != "" {
		t.Error("the caller's input was changed")
	}
}

// TestIgnoresClaudeFiles: with both bridges on standard locations, the
// Codex bridge reads only .codex files.
func TestIgnoresClaudeFiles(t *testing.T) {
	e := newEnv(t, envOpts{})
	settings := hooksJSON("UserPromptSubmit", "", emit(t, "block", "UserPromptSubmit"))
	writeFile(t, filepath.Join(e.cwd, ".claude", "settings.json"), settings)
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), settings)
	writeFile(t, filepath.Join(e.cwd, ".codex", "config.toml"), "[hooks]\n")
	d, failures := e.run(e.baseInput(hooks.UserPromptSubmit))
	if d.Block || len(failures) > 0 || len(e.bridge.Problems()) > 0 {
		t.Errorf("decision %+v failures %q problems %q", d, failures, e.bridge.Problems())
	}
}

// TestFileReloadedWhenChanged: edits to a hooks file take effect.
func TestFileReloadedWhenChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	writeFile(t, path, hooksJSON("UserPromptSubmit", "", emit(t, "sysmsg", "UserPromptSubmit")))
	e := newEnv(t, envOpts{path: path})
	if d, _ := e.run(e.baseInput(hooks.UserPromptSubmit)); len(d.SystemMessages) != 1 {
		t.Fatalf("%+v", d)
	}
	writeFile(t, path, hooksJSON("UserPromptSubmit", "", emit(t, "block", "UserPromptSubmit")))
	future := time.Now().Add(2 * time.Second)
	os.Chtimes(path, future, future)
	if d, _ := e.run(e.baseInput(hooks.UserPromptSubmit)); !d.Block {
		t.Errorf("after the edit: %+v", d)
	}
}
