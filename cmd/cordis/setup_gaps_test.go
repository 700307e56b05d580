package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
)

// readHookInput reads the stdin a hook saved to path, as JSON.
func readHookInput(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("the hook did not run: %v", err)
		return nil
	}
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil {
		t.Errorf("hook input %s: %v", data, err)
	}
	return in
}

// PostCompact runs after /compact in both dialects, each with its own
// input (Claude Code: trigger and compact_summary; Codex: turn_id and
// trigger, no summary), and a Claude hook's exit 2 stderr is shown to the
// user; Codex's Interrupt runs when the editor cancels a running turn.
func TestPostCompactAndInterruptHooksThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	marks := t.TempDir()
	save := func(name string) string { return "cat > " + filepath.Join(marks, name) }
	s.write(t, filepath.Join(s.home, ".claude", "settings.json"), indentJSON(t, map[string]any{"hooks": map[string]any{
		"PostCompact": []any{map[string]any{"matcher": "manual", "hooks": []any{map[string]any{"type": "command",
			"command": save("claude.json") + "; echo 'post-compact check done' >&2; exit 2"}}}},
	}}))
	s.write(t, filepath.Join(s.home, ".codex", "hooks.json"), indentJSON(t, map[string]any{"hooks": map[string]any{
		"PostCompact": []any{map[string]any{"matcher": "manual", "hooks": []any{map[string]any{"type": "command", "command": save("codex.json")}}}},
		"Interrupt":   []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": save("interrupt.json") + `; echo '{"systemMessage":"interrupt noted"}'`}}}},
	}}))

	// The third prompt's request finds the script exhausted and stalls.
	model := newFakeModel(t, textReply("first answer"), textReply("SUMMARY: the user said hello."))
	e := s.start(t, model)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	prompt(t, ctx, e, sid, "hello")
	prompt(t, ctx, e, sid, "/compact")

	claude := readHookInput(t, filepath.Join(marks, "claude.json"))
	if claude["hook_event_name"] != "PostCompact" || claude["trigger"] != "manual" || claude["compact_summary"] != "SUMMARY: the user said hello." {
		t.Errorf("Claude's PostCompact input: %v", claude)
	}
	codex := readHookInput(t, filepath.Join(marks, "codex.json"))
	if _, ok := codex["compact_summary"]; codex["hook_event_name"] != "PostCompact" || codex["trigger"] != "manual" || codex["turn_id"] == "" || ok {
		t.Errorf("Codex's PostCompact input: %v", codex)
	}
	if text := agentText(e, sid); !strings.Contains(text, "post-compact check done") {
		t.Errorf("the Claude hook's stderr was not shown:\n%s", text)
	}

	done := make(chan acp.StopReason, 1)
	go func() {
		stop, _ := e.Prompt(ctx, sid, "think for a long time")
		done <- stop
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(model.Requests()) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(marks, "interrupt.json")); err == nil {
		t.Fatal("Interrupt ran before the turn was cancelled")
	}
	e.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid})
	select {
	case stop := <-done:
		if stop != acp.StopCancelled {
			t.Fatalf("stop = %q, want cancelled", stop)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the turn did not end after session/cancel")
	}
	in := readHookInput(t, filepath.Join(marks, "interrupt.json"))
	if in["hook_event_name"] != "Interrupt" || in["turn_id"] != "turn-3" || in["permission_mode"] != "default" {
		t.Errorf("Interrupt input: %v", in)
	}
	if text := agentText(e, sid); !strings.Contains(text, "interrupt noted") {
		t.Errorf("the Interrupt hook's systemMessage was not shown:\n%s", text)
	}
	e.Close()
}

// Codex's skill roots are read beside Claude Code's: the project's
// .agents/skills and the user's ~/.agents/skills are listed to the model
// in the Skill tool and load through it; a Claude Code skill of the same
// name wins.
func TestCodexSkillRootsThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	s.write(t, ".agents/skills/release-notes/SKILL.md", "---\nname: release-notes\ndescription: Drafts release notes from the changelog\n---\nRead CHANGELOG.md and draft notes.\n")
	s.write(t, filepath.Join(s.home, ".agents", "skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: Tidies imports in Go files\n---\nRun goimports on the changed files.\n")
	s.write(t, ".agents/skills/review/SKILL.md", "---\nname: review\ndescription: the Codex review\n---\nCodex body.\n")
	s.write(t, ".claude/skills/review/SKILL.md", "---\nname: review\ndescription: the Claude review\n---\nClaude body.\n")

	model := newFakeModel(t, toolReply("toolu_1", "Skill", `{"skill":"release-notes"}`), textReply("drafted"))
	e := s.start(t, model)
	allowAll(e)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	prompt(t, ctx, e, sid, "draft the release notes")
	e.Close()
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	for _, want := range []string{"release-notes", "Drafts release notes from the changelog", "tidy", "Tidies imports in Go files", "the Claude review"} {
		if !strings.Contains(reqs[0], want) {
			t.Errorf("the first request does not list %q", want)
		}
	}
	if strings.Contains(reqs[0], "the Codex review") {
		t.Error("the Codex skill won a clash with the Claude Code skill of the same name")
	}
	if !strings.Contains(reqs[1], "Launching skill: release-notes") || !strings.Contains(reqs[1], "Read CHANGELOG.md and draft notes.") {
		t.Errorf("the Codex skill did not load: %.2000s", reqs[1])
	}
}

// A managed enabledPlugins false blocks a plugin the user installed and
// enabled: its hook does not run, its skill is not offered, and /doctor
// says the policy blocked it.
func TestManagedPolicyBlocksPluginThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	files := guardkit()
	delete(files, ".mcp.json")
	installPlugin(t, s, "team", "guardkit", "1.0.0", files)
	s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"enabledPlugins": {"guardkit@team": true}}`)
	s.write(t, ".claude/settings.local.json", `{"enabledPlugins": {"guardkit@team": true}}`)
	s.write(t, filepath.Join(s.managed, "managed-settings.d", "plugins.json"), `{"enabledPlugins": {"guardkit@team": false}}`)

	model := newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":"echo hi"}`), textReply("ran"))
	e := s.start(t, model)
	allowAll(e)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	prompt(t, ctx, e, sid, "run echo hi")
	reqs := model.Requests()
	if len(reqs) != 2 || strings.Contains(reqs[0], "guardkit:check") || strings.Contains(reqs[1], "guardkit says no") {
		t.Errorf("the blocked plugin still took part (%d requests)", len(reqs))
	}
	doctor := slashText(t, e, sid, "/doctor")
	if !strings.Contains(doctor, "guardkit@team") || !strings.Contains(doctor, "blocked by the administrator's policy ("+filepath.Join(s.managed, "managed-settings.d", "plugins.json")+")") {
		t.Errorf("/doctor:\n%s", doctor)
	}
	e.Close()
}

// managed-mcp.json takes exclusive control of MCP servers: its servers
// run (no approval), the user's ~/.claude.json servers and the editor's
// do not, and the thread says why; deniedMcpServers in the policy keeps
// a named server off wherever it comes from.
func TestManagedMCPPolicyThroughTheBinary(t *testing.T) {
	for _, exclusive := range []bool{true, false} {
		ctx := testCtx(t)
		s := newClaudeSetup(t)
		s.write(t, filepath.Join(s.home, ".claude.json"), indentJSON(t, map[string]any{"mcpServers": map[string]any{"mine": mcpTestServer(nil), "other": mcpTestServer(nil)}}))
		if exclusive {
			s.write(t, filepath.Join(s.managed, "managed-mcp.json"), indentJSON(t, map[string]any{"mcpServers": map[string]any{"company": mcpTestServer(nil)}}))
		} else {
			s.write(t, filepath.Join(s.managed, "managed-settings.json"), `{"deniedMcpServers": [{"serverName": "mine"}, {"serverName": "editors"}]}`)
		}
		model := newFakeModel(t, textReply("ok"))
		e := s.start(t, model)
		e.Initialize(ctx, acp.ClientCapabilities{})
		var resp acp.NewSessionResponse
		editorServer := acp.MCPServer{Name: "editors", Command: os.Args[0], Args: []string{}, Env: []acp.EnvVariable{{Name: "CORDIS_MCPTEST", Value: "1"}}}
		if err := e.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: s.work, MCPServers: []acp.MCPServer{editorServer}}, &resp); err != nil {
			t.Fatal(err)
		}
		prompt(t, ctx, e, resp.SessionID, "hi")
		thread := agentText(e, resp.SessionID)
		e.Close()
		req := model.Requests()[0]
		has := func(server string) bool { return strings.Contains(req, `"mcp__`+server+`__echo"`) }
		if exclusive {
			if !has("company") || has("mine") || has("other") || has("editors") {
				t.Errorf("exclusive: company %v, mine %v, other %v, editors %v; want only company", has("company"), has("mine"), has("other"), has("editors"))
			}
			if !strings.Contains(thread, `The editor's MCP server "editors" is not started: the administrator's `+filepath.Join(s.managed, "managed-mcp.json")+" decides which MCP servers run") {
				t.Errorf("exclusive: the thread does not say why the editor's server is off:\n%s", thread)
			}
			continue
		}
		if has("mine") || has("editors") || !has("other") {
			t.Errorf("deny list: mine %v, editors %v, other %v; want only other", has("mine"), has("editors"), has("other"))
		}
		if !strings.Contains(thread, `MCP server "mine" in `+filepath.Join(s.home, ".claude.json")+" is not started: the administrator's policy denies it (deniedMcpServers)") {
			t.Errorf("deny list: the thread does not say why mine is off:\n%s", thread)
		}
	}
}

// A Claude Code PermissionRequest hook is sent permission_suggestions in
// Claude Code's shape (the "Always allow" rule the editor would offer,
// kept in settings.local.json), and its allow's updatedPermissions are
// honoured: the rule is saved and the next matching call neither asks
// the editor nor runs the hook again.
func TestPermissionRequestSuggestionsThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	marks := t.TempDir()
	answer := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch:*"}],"behavior":"allow","destination":"localSettings"}]}}}`
	s.write(t, filepath.Join(marks, "hook.sh"), "cat >> "+filepath.Join(marks, "inputs.jsonl")+"\necho >> "+filepath.Join(marks, "inputs.jsonl")+"\necho '"+answer+"'\n")
	s.write(t, filepath.Join(s.home, ".claude", "settings.json"), indentJSON(t, map[string]any{"hooks": map[string]any{
		"PermissionRequest": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "sh " + filepath.Join(marks, "hook.sh")}}}},
	}}))
	model := newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":"touch a.txt"}`), textReply("made a"),
		toolReply("toolu_2", "Bash", `{"command":"touch b.txt"}`), textReply("made b"))
	e := s.start(t, model)
	asked := askedTitles(e, acp.PermRejectOnce)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	prompt(t, ctx, e, sid, "make a")
	prompt(t, ctx, e, sid, "make b")
	e.Close()

	if len(asked()) != 0 {
		t.Errorf("the editor was asked %q", asked())
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(s.work, f)); err != nil {
			t.Errorf("%s was not made: %v", f, err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(marks, "inputs.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 1 {
		t.Fatalf("the PermissionRequest hook ran %d times, want once (the granted rule covers the second call): %s", len(lines), data)
	}
	var in struct {
		Suggestions []struct {
			Type        string `json:"type"`
			Behavior    string `json:"behavior"`
			Destination string `json:"destination"`
			Rules       []struct {
				ToolName    string `json:"toolName"`
				RuleContent string `json:"ruleContent"`
			} `json:"rules"`
		} `json:"permission_suggestions"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &in); err != nil {
		t.Fatal(err)
	}
	if len(in.Suggestions) != 1 || in.Suggestions[0].Type != "addRules" || in.Suggestions[0].Behavior != "allow" || in.Suggestions[0].Destination != "localSettings" ||
		len(in.Suggestions[0].Rules) != 1 || in.Suggestions[0].Rules[0].ToolName != "Bash" || !strings.HasPrefix(in.Suggestions[0].Rules[0].RuleContent, "touch") {
		t.Errorf("permission_suggestions: %s", lines[0])
	}
	local, err := os.ReadFile(filepath.Join(s.work, ".claude", "settings.local.json"))
	if err != nil || !strings.Contains(string(local), `"Bash(touch:*)"`) {
		t.Errorf("the granted rule was not saved: %s, %v", local, err)
	}
}
