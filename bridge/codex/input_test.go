package codex

import (
	"encoding/json"
	"github.com/cordis-agent/cordis/bridge/internal/rendering"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/hooks"
)

// TestRenderInput pins the stdin JSON of every event: Codex's field names
// and order, turn_id and model, stop_hook_active, and Codex's tool names.
func TestRenderInput(t *testing.T) {
	base := func(ev hooks.Event) *hooks.Input {
		return &hooks.Input{Event: ev, SessionID: "s1", Cwd: "/w", PermissionMode: "acceptEdits", Model: "m1", TurnID: "t1"}
	}
	const common = `"session_id":"s1","transcript_path":"/st/s1.jsonl","cwd":"/w",`
	cases := []struct {
		name string
		in   func() *hooks.Input
		want string
	}{
		{"SessionStart", func() *hooks.Input { in := base(hooks.SessionStart); in.TurnID, in.Source = "", "resume"; return in },
			`{` + common + `"hook_event_name":"SessionStart","model":"m1","permission_mode":"acceptEdits","source":"resume"}`},
		{"SessionEnd", func() *hooks.Input {
			in := base(hooks.SessionEnd)
			in.TurnID, in.Reason = "", "prompt_input_exit"
			return in
		},
			`{` + common + `"hook_event_name":"SessionEnd","model":"m1","reason":"other"}`},
		{"UserPromptSubmit", func() *hooks.Input {
			in := base(hooks.UserPromptSubmit)
			in.Prompt = "fix <the> bug && test"
			return in
		},
			`{` + common + `"hook_event_name":"UserPromptSubmit","model":"m1","permission_mode":"acceptEdits","turn_id":"t1","prompt":"fix <the> bug && test"}`},
		{"PreToolUse Bash", func() *hooks.Input {
			in := base(hooks.PreToolUse)
			in.ToolName, in.ToolUseID, in.ToolInput = "Bash", "tu1", json.RawMessage(`{"command":"npm test","description":"run tests","timeout":1000}`)
			return in
		}, `{` + common + `"hook_event_name":"PreToolUse","model":"m1","permission_mode":"acceptEdits","turn_id":"t1","tool_name":"Bash","tool_use_id":"tu1","tool_input":{"command":"npm test"}}`},
		{"PermissionRequest Bash", func() *hooks.Input {
			in := base(hooks.PermissionRequest)
			in.ToolName, in.ToolUseID, in.ToolInput = "Bash", "tu1", json.RawMessage(`{"command":"npm test","description":"run tests"}`)
			return in
		}, `{` + common + `"hook_event_name":"PermissionRequest","model":"m1","permission_mode":"acceptEdits","turn_id":"t1","tool_name":"Bash","tool_input":{"command":"npm test","description":"run tests"}}`},
		{"PostToolUse Read", func() *hooks.Input {
			in := base(hooks.PostToolUse)
			in.ToolName, in.ToolUseID, in.ToolInput = "Read", "tu2", json.RawMessage(`{"file_path":"/w/a.go"}`)
			in.ToolResponse = hooks.ToolResponseJSON("package a\n")
			return in
		}, `{` + common + `"hook_event_name":"PostToolUse","model":"m1","permission_mode":"acceptEdits","turn_id":"t1","tool_name":"Read","tool_use_id":"tu2","tool_input":{"file_path":"/w/a.go"},"tool_response":"package a\n"}`},
		{"PostToolUseFailure Bash", func() *hooks.Input {
			in := base(hooks.PostToolUseFailure)
			in.ToolName, in.ToolUseID, in.ToolInput, in.Error = "Bash", "tu3", json.RawMessage(`{"command":"false"}`), "Exit code 1"
			return in
		}, `{` + common + `"hook_event_name":"PostToolUse","model":"m1","permission_mode":"acceptEdits","turn_id":"t1","tool_name":"Bash","tool_use_id":"tu3","tool_input":{"command":"false"},"tool_response":"Exit code 1"}`},
		{"Stop first", func() *hooks.Input { in := base(hooks.Stop); in.LastAssistantMessage = "Done."; return in },
			`{` + common + `"hook_event_name":"Stop","model":"m1","permission_mode":"acceptEdits","turn_id":"t1","stop_hook_active":false,"last_assistant_message":"Done."}`},
		{"Stop continuation", func() *hooks.Input { in := base(hooks.Stop); in.StopHookActive = true; return in },
			`{` + common + `"hook_event_name":"Stop","model":"m1","permission_mode":"acceptEdits","turn_id":"t1","stop_hook_active":true,"last_assistant_message":null}`},
		{"SubagentStart", func() *hooks.Input {
			in := base(hooks.SubagentStart)
			in.AgentID, in.AgentType = "a1", "explore"
			return in
		},
			`{` + common + `"hook_event_name":"SubagentStart","model":"m1","permission_mode":"acceptEdits","turn_id":"t1","agent_id":"a1","agent_type":"explore"}`},
		{"SubagentStop", func() *hooks.Input {
			in := base(hooks.SubagentStop)
			in.AgentID, in.AgentType, in.StopHookActive, in.LastAssistantMessage = "a1", "explore", true, "Found."
			return in
		}, `{` + common + `"hook_event_name":"SubagentStop","model":"m1","permission_mode":"acceptEdits","turn_id":"t1","agent_id":"a1","agent_type":"explore","agent_transcript_path":null,"stop_hook_active":true,"last_assistant_message":"Found."}`},
		{"PreCompact", func() *hooks.Input {
			in := base(hooks.PreCompact)
			in.Trigger = "manual"
			in.CustomInstructions = "x"
			return in
		},
			`{` + common + `"hook_event_name":"PreCompact","model":"m1","turn_id":"t1","trigger":"manual"}`},
		{"PostCompact", func() *hooks.Input {
			in := base(hooks.PostCompact)
			in.Trigger, in.CompactSummary = "auto", "the summary"
			return in
		},
			`{` + common + `"hook_event_name":"PostCompact","model":"m1","turn_id":"t1","trigger":"auto"}`},
		{"Interrupt", func() *hooks.Input { return base(hooks.Interrupt) },
			`{` + common + `"hook_event_name":"Interrupt","model":"m1","permission_mode":"acceptEdits","turn_id":"t1"}`},
		{"tool call in a subagent", func() *hooks.Input {
			in := base(hooks.PreToolUse)
			in.ToolName, in.ToolUseID, in.ToolInput, in.AgentID, in.AgentType = "Grep", "tu4", json.RawMessage(`{"pattern":"x"}`), "a1", "explore"
			return in
		}, `{` + common + `"hook_event_name":"PreToolUse","model":"m1","permission_mode":"acceptEdits","turn_id":"t1","agent_id":"a1","agent_type":"explore","tool_name":"Grep","tool_use_id":"tu4","tool_input":{"pattern":"x"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in()
			ev, _ := codexEventOf(in.Event)
			var tv *toolView
			if isToolEvent(ev) {
				tv = viewTool(in, nil)
			}
			got, err := renderInput(ev, in, tv, rendering.Paths{Session: "/st/s1.jsonl"})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if !json.Valid(got) {
				t.Errorf("not valid JSON")
			}
		})
	}
}

// TestRenderInputTranscriptPaths: transcript_path and
// agent_transcript_path name the rollouts the bridge rendered, and are
// null without them.
func TestRenderInputTranscriptPaths(t *testing.T) {
	in := &hooks.Input{Event: hooks.SubagentStop, SessionID: "s1", Cwd: "/w", Model: "m1", TurnID: "t1", AgentID: "a1", AgentType: "explore"}
	rendered := rendering.Paths{Session: "/st/s1/rollout.transcript.jsonl", Agent: "/st/s1/subagents/a1.rollout.transcript.jsonl"}
	for _, c := range []struct {
		name  string
		paths rendering.Paths
		want  string
	}{
		{"rendered", rendered, `"transcript_path":"/st/s1/rollout.transcript.jsonl",`},
		{"none", rendering.Paths{}, `"transcript_path":null,`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := renderInput(evSubagentStop, in, nil, c.paths)
			if err != nil {
				t.Fatal(err)
			}
			wantAgent := `"agent_transcript_path":null,`
			if c.paths.Agent != "" {
				wantAgent = `"agent_transcript_path":"` + c.paths.Agent + `",`
			}
			if !strings.Contains(string(got), c.want) || !strings.Contains(string(got), wantAgent) {
				t.Errorf("got %s\nwant %s and %s", got, c.want, wantAgent)
			}
		})
	}
}

// TestEditAndWriteBecomeApplyPatch: Edit/Write are shown to Codex hooks as
// apply_patch with the patch text in tool_input.command.
func TestEditAndWriteBecomeApplyPatch(t *testing.T) {
	cwd := t.TempDir()
	file := filepath.Join(cwd, "src", "app.go")
	writeFile(t, file, "package app\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() {}\n")
	in := func(tool, input string) *hooks.Input {
		return &hooks.Input{Event: hooks.PreToolUse, Cwd: cwd, ToolName: tool, ToolUseID: "tu", ToolInput: json.RawMessage(input)}
	}
	cmdOf := func(tv *toolView) string {
		var v struct{ Command string }
		if err := json.Unmarshal(tv.input, &v); err != nil {
			t.Fatal(err)
		}
		return v.Command
	}

	edit := viewTool(in("Edit", `{"file_path":"`+file+`","old_string":"return 1","new_string":"return 2"}`), nil)
	if edit.name != "apply_patch" || strings.Join(edit.aliases, ",") != "Edit,Write" {
		t.Errorf("Edit is %s %v, want apply_patch [Edit Write]", edit.name, edit.aliases)
	}
	wantEdit := "*** Begin Patch\n*** Update File: src/app.go\n@@\n package app\n \n func A() int {\n-\treturn 1\n+\treturn 2\n }\n \n func B() {}\n*** End Patch"
	if got := cmdOf(edit); got != wantEdit {
		t.Errorf("Edit patch:\n%s\nwant:\n%s", got, wantEdit)
	}

	newFile := filepath.Join(cwd, "NOTES.md")
	write := viewTool(in("Write", `{"file_path":"`+newFile+`","content":"# Notes\nfirst\n"}`), nil)
	if got, want := cmdOf(write), "*** Begin Patch\n*** Add File: NOTES.md\n+# Notes\n+first\n*** End Patch"; got != want {
		t.Errorf("Write (new file) patch:\n%s\nwant:\n%s", got, want)
	}

	over := viewTool(in("Write", `{"file_path":"`+file+`","content":"package app\n"}`), nil)
	if got, want := cmdOf(over), "*** Begin Patch\n*** Update File: src/app.go\n@@\n package app\n-\n-func A() int {\n-\treturn 1\n-}\n-\n-func B() {}\n*** End Patch"; got != want {
		t.Errorf("Write (overwrite) patch:\n%s\nwant:\n%s", got, want)
	}

	outside := viewTool(in("Edit", `{"file_path":"/nonexistent/x.txt","old_string":"a\nb","new_string":"c"}`), nil)
	if got, want := cmdOf(outside), "*** Begin Patch\n*** Update File: /nonexistent/x.txt\n@@\n-a\n-b\n+c\n*** End Patch"; got != want {
		t.Errorf("unreadable file patch:\n%s\nwant:\n%s", got, want)
	}

	// The patch built for a call applies to the file and yields what the
	// tool would write.
	ops, err := parsePatch(cmdOf(edit))
	if err != nil || len(ops) != 1 {
		t.Fatalf("parsePatch: %v %v", ops, err)
	}
	data, _ := os.ReadFile(file)
	got, err := applyChunks(string(data), ops[0].chunks)
	if err != nil || got != strings.Replace(string(data), "return 1", "return 2", 1) {
		t.Errorf("applying the rendered patch: %q, %v", got, err)
	}
}

func TestDiffHunks(t *testing.T) {
	var a []string
	for i := range 30 {
		a = append(a, "line"+string(rune('A'+i%26))+strings.Repeat("x", i/26))
	}
	b := append([]string(nil), a...)
	b[2] = "changed early"
	b[25] = "changed late"
	b = append(b[:10], b[11:]...) // delete a line in between (close to neither)
	old, new := strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n"
	patch := updateFilePatch("f.txt", old, new)
	if n := strings.Count(patch, "\n@@\n"); n != 3 {
		t.Errorf("want 3 hunks, got %d:\n%s", n, patch)
	}
	ops, err := parsePatch(patch)
	if err != nil {
		t.Fatal(err)
	}
	got, err := applyChunks(old, ops[0].chunks)
	if err != nil || got != new {
		t.Errorf("round trip failed: %v\n%s", err, patch)
	}
	// Changes closer than twice the context share one hunk.
	c := append([]string(nil), a...)
	c[5], c[9] = "x", "y"
	if n := strings.Count(updateFilePatch("f", old, strings.Join(c, "\n")+"\n"), "@@"); n != 1 {
		t.Errorf("near changes: %d hunks, want 1", n)
	}
}

func TestApplyPatchParsingErrors(t *testing.T) {
	for _, p := range []string{
		"no envelope",
		"*** Begin Patch\n*** End Patch",
		"*** Begin Patch\n+orphan\n*** End Patch",
		"*** Begin Patch\n*** Add File: a\nnot plus\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n@@\n?bad\n*** End Patch",
	} {
		if _, err := parsePatch(p); err == nil {
			t.Errorf("parsePatch(%q) succeeded", p)
		}
	}
	if _, err := applyChunks("a\nb\n", []chunk{{old: []string{"zzz"}, new: []string{"y"}}}); err == nil {
		t.Error("applying a hunk whose lines are absent succeeded")
	}
	// Whitespace-tolerant matching, as Codex's.
	got, err := applyChunks("a  \n\tb\n", []chunk{{old: []string{"a", "b"}, new: []string{"c"}}})
	if err != nil || got != "c\n" {
		t.Errorf("lenient match: %q %v", got, err)
	}
}
