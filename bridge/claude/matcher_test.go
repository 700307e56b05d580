package claude

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/cordis-agent/cordis/hooks"
)

func TestMatcher(t *testing.T) {
	tests := []struct {
		matcher string
		value   string
		want    bool
	}{
		{"", "Bash", true},
		{"*", "anything", true},
		{"Bash", "Bash", true},
		{"Bash", "bash", false}, // case-sensitive
		{"Bash", "BashOutput", false},
		{"Edit|Write", "Write", true},
		{"Edit|Write", "MultiEdit", false},
		{"Edit, Write", "Write", true}, // comma lists
		{"Edit | Write", "Edit", true},
		{"code-reviewer", "code-reviewer", true}, // hyphens are exact
		{"code-reviewer", "my-code-reviewer", false},
		{"Edit.*", "NotebookEdit", true}, // unanchored regex
		{"^Edit$", "NotebookEdit", false},
		{"Notebook.*", "NotebookEdit", true},
		{"mcp__memory__.*", "mcp__memory__create_entities", true},
		{"mcp__memory", "mcp__memory__create_entities", false}, // exact name
		{"mcp__.*__write.*", "mcp__fs__write_file", true},
		{"startup|resume", "resume", true},
		{"auto", "manual", false},
		{"Task", "Agent", true}, // Claude Code's old name of the subagent tool
		{"Agent", "Agent", true},
		{"Task|Bash", "Agent", true},
		{"Task", "TaskOutput", false},
	}
	for _, tt := range tests {
		m, err := compileMatcher(tt.matcher)
		if err != nil {
			t.Fatalf("%q: %v", tt.matcher, err)
		}
		if got := m.match(tt.value); got != tt.want {
			t.Errorf("matcher %q on %q = %v, want %v", tt.matcher, tt.value, got, tt.want)
		}
	}
	if _, err := compileMatcher("Bash("); err == nil {
		t.Error("an invalid regex compiled")
	}
}

// TestMatcherPerEvent checks what each event's matcher is tested against.
func TestMatcherPerEvent(t *testing.T) {
	tests := []struct {
		ev      hooks.Event
		matcher string
		set     func(*hooks.Input)
		want    bool
	}{
		{hooks.PreToolUse, "Bash", nil, true},
		{hooks.PreToolUse, "Edit|Write", nil, false},
		{hooks.PermissionRequest, "Ba.*", nil, true},
		{hooks.PostToolUse, "Read", nil, false},
		{hooks.PostToolUseFailure, "Bash", nil, true},
		{hooks.SessionStart, "startup", nil, true},
		{hooks.SessionStart, "resume|clear", nil, false},
		{hooks.SessionEnd, "other", nil, true},
		{hooks.SessionEnd, "logout", nil, false},
		{hooks.Notification, "idle_prompt", nil, true},
		{hooks.Notification, "permission_prompt", nil, false},
		{hooks.SubagentStart, "general-purpose", nil, true},
		{hooks.SubagentStop, "Explore", nil, false},
		{hooks.PreCompact, "manual", nil, true},
		{hooks.PreCompact, "auto", nil, false},
		{hooks.PostCompact, "auto", nil, true},
		{hooks.PostCompact, "manual", nil, false},
		// Matchers are ignored on UserPromptSubmit and Stop.
		{hooks.UserPromptSubmit, "NoSuchThing", nil, true},
		{hooks.Stop, "NoSuchThing", nil, true},
		// MCP tool names.
		{hooks.PreToolUse, "mcp__github__.*", func(in *hooks.Input) { in.ToolName = "mcp__github__create_issue" }, true},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "hooks.json")
		writeSettings(t, path, map[hooks.Event][]groupSpec{tt.ev: {{Matcher: tt.matcher, Hooks: []hookSpec{cmd("true")}}}})
		b := New(Config{Path: path}, Options{})
		in := inputFor(tt.ev, t.TempDir())
		if tt.set != nil {
			tt.set(in)
		}
		if got := b.Applies(in); got != tt.want {
			t.Errorf("%s matcher %q: Applies = %v, want %v", tt.ev, tt.matcher, got, tt.want)
		}
	}
}

func TestIfFilter(t *testing.T) {
	home := "/home/u"
	tests := []struct {
		rule  string
		tool  string
		input string
		want  bool
	}{
		{"Bash", "Bash", `{"command":"ls"}`, true},
		{"Bash", "Write", `{"file_path":"/p/a"}`, false},
		{"Bash(git commit:*)", "Bash", `{"command":"git commit -m x"}`, true},
		{"Bash(git commit:*)", "Bash", `{"command":"git push"}`, false},
		{"Bash(npm run test*)", "Bash", `{"command":"npm run test -- --watch"}`, true},
		{"Bash(rm *)", "Bash", `{"command":"ls"}`, false},
		{"Edit(src/**)", "Edit", `{"file_path":"/p/src/a/b.go"}`, true},
		{"Edit(src/**)", "Edit", `{"file_path":"/p/docs/a.md"}`, false},
		{"Write(*.env)", "Write", `{"file_path":"/p/.env"}`, true},
		{"Write(*.env)", "Write", `{"file_path":"/p/sub/.env"}`, false},
		{"Read(~/.ssh/*)", "Read", `{"file_path":"/home/u/.ssh/id_rsa"}`, true},
		{"Read(//etc/**)", "Read", `{"file_path":"/etc/passwd"}`, true},
		{"WebFetch(domain:example.com)", "WebFetch", `{"url":"https://x"}`, true}, // not evaluated: runs
		{"Bash(unclosed", "Bash", `{"command":"ls"}`, true},
	}
	for _, tt := range tests {
		in := &hooks.Input{Event: hooks.PreToolUse, Cwd: "/p", ToolName: tt.tool, ToolInput: json.RawMessage(tt.input)}
		if got := ifMatches(tt.rule, in, home); got != tt.want {
			t.Errorf("if %q on %s %s = %v, want %v", tt.rule, tt.tool, tt.input, got, tt.want)
		}
	}
	// Through the bridge: the hook runs only when its filter matches.
	b := bridgeWith(t, hooks.PreToolUse, hookSpec{Type: "command", Command: "exit 2", If: "Bash(git push:*)"})
	in := inputFor(hooks.PreToolUse, t.TempDir())
	if d, _ := b.Run(context.Background(), in); d.Permission != hooks.NoOpinion {
		t.Fatalf("filtered hook ran: %+v", d)
	}
	in.ToolInput = json.RawMessage(`{"command":"git push --force"}`)
	if d, _ := b.Run(context.Background(), in); d.Permission != hooks.Deny {
		t.Fatalf("matching hook did not run: %+v", d)
	}
}
