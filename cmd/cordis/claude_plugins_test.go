package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/loop/mcp/mcptest"
)

// This test binary doubles as the stdio MCP server that plugin and
// .mcp.json definitions start (mcptest's, on CORDIS_MCPTEST=1).
func init() { mcptest.ServeIfRequested() }

// mcpTestServer is a .mcp.json server definition that runs this test
// binary as mcptest's server, with env added to its environment.
func mcpTestServer(env map[string]string) map[string]any {
	e := map[string]string{}
	for _, kv := range mcptest.Env("") {
		k, v, _ := strings.Cut(kv, "=")
		e[k] = v
	}
	for k, v := range env {
		e[k] = v
	}
	return map[string]any{"command": os.Args[0], "env": e}
}

// indentJSON is v as a settings file writes it.
func indentJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// installPlugin lays a plugin out as `claude plugin marketplace add` and
// `claude plugin install NAME@MARKET` leave it: the marketplace's copy,
// known_marketplaces.json, the versioned cache copy and
// installed_plugins.json (version 2). It returns the cache copy, the
// plugin's root as Claude Code runs it.
func installPlugin(t *testing.T, s claudeSetup, market, name, version string, files map[string]string) string {
	t.Helper()
	plugins := filepath.Join(s.home, ".claude", "plugins")
	marketDir := filepath.Join(plugins, "marketplaces", market)
	cache := filepath.Join(plugins, "cache", market, name, version)
	for rel, body := range files {
		s.write(t, filepath.Join(marketDir, "plugins", name, rel), body)
		s.write(t, filepath.Join(cache, rel), body)
	}
	s.write(t, filepath.Join(marketDir, ".claude-plugin", "marketplace.json"), indentJSON(t, map[string]any{
		"name": market, "owner": map[string]string{"name": "team"},
		"plugins": []map[string]string{{"name": name, "source": "./plugins/" + name, "description": "test plugin"}},
	}))
	s.write(t, filepath.Join(plugins, "known_marketplaces.json"), indentJSON(t, map[string]any{
		market: map[string]any{"source": map[string]string{"source": "directory", "path": "/src/" + market}, "installLocation": marketDir, "lastUpdated": "2026-01-01T00:00:00.000Z"},
	}))
	s.write(t, filepath.Join(plugins, "installed_plugins.json"), indentJSON(t, map[string]any{
		"version": 2,
		"plugins": map[string]any{name + "@" + market: []map[string]string{{
			"scope": "user", "installPath": cache, "version": version,
			"installedAt": "2026-01-01T00:00:00.000Z", "lastUpdated": "2026-01-01T00:00:00.000Z",
		}}},
	}))
	return cache
}

// guardkit is a tiny plugin of every kind of part: a PreToolUse hook run
// through ${CLAUDE_PLUGIN_ROOT} that denies Bash and leaves a mark in
// ${CLAUDE_PLUGIN_DATA}, a command, a skill, an agent and an MCP server.
func guardkit() map[string]string {
	return map[string]string{
		".claude-plugin/plugin.json": `{"name": "guardkit", "version": "1.0.0", "description": "Guards"}`,
		"hooks/hooks.json": `{"description": "guards", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh\""}]}]}}`,
		"hooks/guard.sh": `printf '%s|%s' "$CLAUDE_PLUGIN_ROOT" "$CLAUDE_PROJECT_DIR" > "$CLAUDE_PLUGIN_DATA/guard-ran"
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"guardkit says no"}}'
`,
		"commands/hello.md":      "---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS, from ${CLAUDE_PLUGIN_ROOT}.\n",
		"skills/check/SKILL.md":  "---\nname: check\ndescription: Checks the work before it ships\n---\nRun ${CLAUDE_PLUGIN_ROOT}/check.sh.\n",
		"agents/reviewer.md":     "---\nname: reviewer\ndescription: Reviews a change\ntools: Read\n---\nYou review.\n",
		"check.sh":               "echo ok\n",
		".mcp.json":              "", // written by the test
		"README.md":              "guardkit",
		"commands/sub/nested.md": "nested",
	}
}

// TestClaudePluginThroughTheBinary: a plugin installed and enabled the
// way Claude Code does it contributes its command (/guardkit:hello), its
// skill and agent (guardkit:check, guardkit:reviewer), its MCP server's
// tools (mcp__plugin_guardkit_stamp__*) and its hook, which runs with
// ${CLAUDE_PLUGIN_ROOT} expanded and the plugin's variables set; /doctor
// lists it and what it brought.
func TestClaudePluginThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	files := guardkit()
	files[".mcp.json"] = indentJSON(t, map[string]any{"mcpServers": map[string]any{"stamp": mcpTestServer(nil)}})
	root := installPlugin(t, s, "team", "guardkit", "1.0.0", files)
	s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"enabledPlugins": {"guardkit@team": true}}`)

	model := newFakeModel(t, textReply("hello"), toolReply("toolu_1", "Bash", `{"command":"echo hi"}`), textReply("denied, fine"))
	e := s.start(t, model)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	for _, text := range []string{"/guardkit:hello world", "run echo hi"} {
		if stop, err := e.Prompt(ctx, sid, text); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %q: %q, %v", text, stop, err)
		}
	}
	if !advertised(e, sid, "guardkit:hello") || !advertised(e, sid, "guardkit:sub:nested") {
		t.Errorf("the plugin's commands are not advertised")
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	for _, want := range []string{
		"Say hello to world, from " + jsonEscaped(root) + ".",
		"guardkit:check", "Checks the work before it ships", // the Skill tool lists it
		"guardkit:reviewer", "Reviews a change", // the Agent tool lists it
		`"mcp__plugin_guardkit_stamp__echo"`,
	} {
		if !strings.Contains(reqs[0], want) {
			t.Errorf("the first request lacks %q", want)
		}
	}
	if !strings.Contains(reqs[2], "guardkit says no") {
		t.Errorf("the plugin's hook did not deny the Bash call: %s", reqs[2])
	}
	mark, err := os.ReadFile(filepath.Join(s.home, ".claude", "plugins", "data", "guardkit-team", "guard-ran"))
	if err != nil || string(mark) != root+"|"+s.work {
		t.Errorf("the hook's CLAUDE_PLUGIN_ROOT|CLAUDE_PROJECT_DIR = %q, %v; want %q", mark, err, root+"|"+s.work)
	}
	doctor := slashText(t, e, sid, "/doctor")
	if !strings.Contains(doctor, "✓ Claude Code plugin guardkit@team ("+root) || !strings.Contains(doctor, "2 commands, 1 skill, 1 agent, 1 hook file, 1 MCP server") ||
		!strings.Contains(doctor, "✓ MCP server plugin_guardkit_stamp from plugin guardkit@team") {
		t.Errorf("/doctor:\n%s", doctor)
	}
}

// TestProjectEnabledPluginWaitsForTrust: a plugin that only the
// project's settings enable is not loaded (its hook does not run) until
// the user trusts that with `cordis trust`; a broken plugin is a message
// in the thread and a /doctor line, never a failure.
func TestProjectEnabledPluginWaitsForTrust(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	files := guardkit()
	delete(files, ".mcp.json")
	installPlugin(t, s, "team", "guardkit", "1.0.0", files)
	// A second, broken plugin the user enabled.
	broken := filepath.Join(s.home, ".claude", "plugins", "cache", "team", "broken", "0.1.0")
	s.write(t, filepath.Join(broken, ".claude-plugin", "plugin.json"), "{\"name\": \"broken\",\n")
	installed := filepath.Join(s.home, ".claude", "plugins", "installed_plugins.json")
	data, _ := os.ReadFile(installed)
	var doc map[string]any
	json.Unmarshal(data, &doc)
	doc["plugins"].(map[string]any)["broken@team"] = []map[string]string{{"scope": "user", "installPath": broken, "version": "0.1.0"}}
	s.write(t, installed, indentJSON(t, doc))
	s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"enabledPlugins": {"broken@team": true, "guardkit@team": false}}`)
	s.write(t, ".claude/settings.json", `{"enabledPlugins": {"guardkit@team": true}}`)

	model := newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":"echo hi"}`), textReply("ran"),
		toolReply("toolu_2", "Bash", `{"command":"echo hi"}`), textReply("denied"))
	e := s.start(t, model)
	allowAll(e)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	if stop, err := e.Prompt(ctx, sid, "run echo hi"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	thread := agentText(e, sid)
	for _, want := range []string{
		"Claude Code plugin guardkit@team was not loaded: only the project's settings (" + filepath.Join(s.work, ".claude", "settings.json") + ") enable it",
		"cordis trust --cwd " + s.work,
		"Claude Code plugin broken@team was not loaded: " + filepath.Join(broken, ".claude-plugin", "plugin.json") + ": not a valid plugin manifest",
	} {
		if !strings.Contains(thread, want) {
			t.Errorf("the thread lacks %q:\n%s", want, thread)
		}
	}
	if reqs := model.Requests(); strings.Contains(reqs[1], "guardkit says no") {
		t.Fatal("the untrusted plugin's hook ran")
	}
	doctor := slashText(t, e, sid, "/doctor")
	if !strings.Contains(doctor, "✗ Claude Code plugin broken@team skipped:") || !strings.Contains(doctor, "✗ Claude Code plugin guardkit@team skipped: only the project's settings") {
		t.Errorf("/doctor:\n%s", doctor)
	}
	e.Close()

	out, err := s.command("trust", "--cwd", s.work, "--state-dir", s.state).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "enabledPlugins: guardkit@team — trusted now") {
		t.Fatalf("cordis trust: %v\n%s", err, out)
	}
	e2 := s.start(t, model)
	e2.Initialize(ctx, acp.ClientCapabilities{})
	sid = e2.NewSession(ctx, s.work).SessionID
	if stop, err := e2.Prompt(ctx, sid, "run echo hi"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	if reqs := model.Requests(); !strings.Contains(reqs[3], "guardkit says no") {
		t.Fatal("the trusted plugin's hook did not run")
	}
}

// TestProjectMCPServersNeedApproval: a project's .mcp.json server starts
// only once the user approved its exact definition (`cordis trust`), and
// the editor is told which servers wait and how to approve them; then
// its tools are used. Its ${VAR}s expand, but never to a provider key;
// the user's ~/.claude.json servers need no approval; the editor's
// server of the same name wins, and the editor is told.
func TestProjectMCPServersNeedApproval(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	s.write(t, ".mcp.json", indentJSON(t, map[string]any{"mcpServers": map[string]any{
		"notes": mcpTestServer(map[string]string{"LEAK": "${ANTHROPIC_API_KEY}", "GREETING": "${CORDIS_TEST_GREETING:-hello}"}),
	}}))
	s.write(t, filepath.Join(s.home, ".claude.json"), indentJSON(t, map[string]any{"mcpServers": map[string]any{"mine": mcpTestServer(nil)}}))

	model := newFakeModel(t, textReply("no notes yet"),
		toolReply("toolu_1", "mcp__notes__env", `{"name":"LEAK"}`), toolReply("toolu_2", "mcp__notes__env", `{"name":"GREETING"}`), textReply("done"),
		textReply("editor's"))
	e := s.start(t, model)
	allowAll(e)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	if stop, err := e.Prompt(ctx, sid, "hi"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	thread := agentText(e, sid)
	if !strings.Contains(thread, "has MCP servers waiting for your approval: notes") || !strings.Contains(thread, "cordis trust --cwd "+s.work) {
		t.Errorf("the thread does not say what waits for approval:\n%s", thread)
	}
	if reqs := model.Requests(); strings.Contains(reqs[0], "mcp__notes__") || !strings.Contains(reqs[0], `"mcp__mine__echo"`) {
		t.Fatalf("before approval: notes offered or mine missing")
	}

	out, err := s.command("trust", "--list", "--cwd", s.work, "--state-dir", s.state).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "mcpServers [notes]: ") || !strings.Contains(string(out), "not trusted") {
		t.Fatalf("cordis trust --list: %v\n%s", err, out)
	}
	if out, err := s.command("trust", "--cwd", s.work, "--state-dir", s.state).CombinedOutput(); err != nil {
		t.Fatalf("cordis trust: %v\n%s", err, out)
	}
	sid = e.NewSession(ctx, s.work).SessionID
	if stop, err := e.Prompt(ctx, sid, "read the variables"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	reqs := model.Requests()
	if !strings.Contains(reqs[1], `"mcp__notes__echo"`) {
		t.Fatal("the approved server's tools are not offered")
	}
	if strings.Contains(reqs[2], "test-key") || !strings.Contains(reqs[2], "${ANTHROPIC_API_KEY}") {
		t.Errorf("the provider key reached the server: %s", reqs[2])
	}
	if !strings.Contains(reqs[3], "hello") {
		t.Errorf("${VAR:-default} not expanded: %s", reqs[3])
	}

	// The editor's server of the same name is used instead, and the
	// editor is told.
	var resp acp.NewSessionResponse
	editorServer := acp.MCPServer{Name: "notes", Command: os.Args[0], Args: []string{}, Env: []acp.EnvVariable{{Name: "CORDIS_MCPTEST", Value: "1"}}}
	if err := e.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: s.work, MCPServers: []acp.MCPServer{editorServer}}, &resp); err != nil {
		t.Fatal(err)
	}
	if stop, err := e.Prompt(ctx, resp.SessionID, "which?"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	if thread := agentText(e, resp.SessionID); !strings.Contains(thread, `The editor's MCP server "notes" is used instead of the one of the same name in `+filepath.Join(s.work, ".mcp.json")) {
		t.Errorf("the clash is not told:\n%s", thread)
	}
	// Editing the definition makes it wait again.
	s.write(t, ".mcp.json", indentJSON(t, map[string]any{"mcpServers": map[string]any{"notes": mcpTestServer(map[string]string{"X": "edited"})}}))
	out, _ = s.command("trust", "--list", "--cwd", s.work, "--state-dir", s.state).CombinedOutput()
	if !strings.Contains(string(out), "changed since it was trusted") {
		t.Errorf("an edited server is still approved:\n%s", out)
	}
}

func allowAll(e *acptest.Editor) {
	e.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
	}
}

// advertised reports whether the session's last command list has name.
func advertised(e *acptest.Editor, sid, name string) bool {
	found := false
	for _, u := range e.Updates(sid) {
		if c, ok := u.(*acp.AvailableCommandsUpdate); ok {
			found = false
			for _, cmd := range c.AvailableCommands {
				found = found || cmd.Name == name
			}
		}
	}
	return found
}

// slashText runs a slash command that answers with text, and returns the
// text it added to the thread.
func slashText(t *testing.T, e *acptest.Editor, sid, command string) string {
	t.Helper()
	before := len(agentText(e, sid))
	if _, err := e.Prompt(testCtx(t), sid, command); err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	return agentText(e, sid)[before:]
}

func jsonEscaped(s string) string {
	q, _ := json.Marshal(s)
	return string(q[1 : len(q)-1])
}

// looper is a tiny plugin shaped like the loop plugins people install: a
// command whose ```! block runs the plugin's setup script on the
// arguments, pre-approved by an allowed-tools rule that names the script
// through ${CLAUDE_PLUGIN_ROOT}; a Stop hook that reads the state file
// and the transcript and feeds the task back until the last assistant
// message holds the promise; and an agent whose description is the
// unquoted paragraph with ": " in it that strict YAML refuses.
func looper() map[string]string {
	return map[string]string{
		".claude-plugin/plugin.json": `{"name": "looper", "version": "0.1.0"}`,
		"commands/start.md": "---\ndescription: \"Start a loop\"\nargument-hint: \"TASK [--rounds N]\"\nallowed-tools: [\"Bash(${CLAUDE_PLUGIN_ROOT}/bin/setup.sh:*)\"]\n---\n\n" +
			"```!\n\"${CLAUDE_PLUGIN_ROOT}/bin/setup.sh\" $ARGUMENTS\n```\n\nWork on the task until it is done.\n",
		"bin/setup.sh": `#!/bin/sh
mkdir -p .claude
task=""
for w in "$@"; do printf '[%s]' "$w" >> .claude/looper.args; case "$w" in --*) ;; *) task="$task $w";; esac; done
printf 'round: 1\n---\n%s\n' "${task# }" > .claude/looper.local.md
echo "looper armed"
`,
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/stop.sh"}]}]}}`,
		"hooks/stop.sh": `#!/bin/sh
input=$(cat)
[ -f .claude/looper.local.md ] || exit 0
transcript=$(printf '%s' "$input" | jq -r .transcript_path)
last=$(grep '"role":"assistant"' "$transcript" | tail -1 | jq -r '.message.content | map(select(.type == "text")) | map(.text) | join("\n")')
case "$last" in *"<promise>DONE</promise>"*) rm .claude/looper.local.md; exit 0;; esac
task=$(sed '1,/^---$/d' .claude/looper.local.md)
jq -n --arg t "$task" '{decision: "block", reason: $t, systemMessage: "looper: again"}'
`,
		"agents/tidier.md": "---\nname: tidier\ndescription: Use this agent when code needs tidying. Examples: <example>Context: the user asks\nuser: \"tidy it\"\n</example>\ntools: [\"Read\", \"Grep\"]\n---\n\nYou tidy code.\n",
	}
}

// TestPluginLoopCommandAndStopHook: a loop plugin behaves as in Claude
// Code: its command's ```! block runs the setup script without asking
// (allowed-tools names it through ${CLAUDE_PLUGIN_ROOT}) with the
// arguments as the script's words, the Stop hook finds the assistant's
// words in the transcript and feeds the task back until the promise, and
// its agent with a non-strict YAML header is offered.
func TestPluginLoopCommandAndStopHook(t *testing.T) {
	for _, tool := range []string{"jq", "grep", "sed"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	root := installPlugin(t, s, "team", "looper", "0.1.0", looper())
	for _, f := range []string{"bin/setup.sh", "hooks/stop.sh"} {
		os.Chmod(filepath.Join(root, f), 0o755)
	}
	s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"enabledPlugins": {"looper@team": true}}`)
	model := newFakeModel(t, textReply("round one"), textReply("round two"), textReply("<promise>DONE</promise>"))
	e := s.start(t, model)
	e.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		t.Errorf("asked for permission: %s %s", p.ToolCall.Title, p.ToolCall.RawInput)
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermRejectOnce}}, nil
	}
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	if stop, err := e.Prompt(ctx, sid, `/looper:start "Build a todo API" --rounds 3`); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	if args, _ := os.ReadFile(filepath.Join(s.work, ".claude", "looper.args")); string(args) != "[Build a todo API][--rounds][3]" {
		t.Errorf("the setup script got %q", args)
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3 (the task fed back twice)", len(reqs))
	}
	if !strings.Contains(reqs[0], "looper armed") || !strings.Contains(reqs[0], "tidier") || !strings.Contains(reqs[0], "Use this agent when code needs tidying") {
		t.Errorf("the first request lacks the script's output or the agent")
	}
	if !strings.Contains(reqs[1], "Build a todo API") || !strings.Contains(reqs[2], "round two") {
		t.Errorf("the Stop hook did not feed the task back")
	}
	if _, err := os.Stat(filepath.Join(s.work, ".claude", "looper.local.md")); !os.IsNotExist(err) {
		t.Errorf("the loop did not end on the promise: %v", err)
	}
	if !advertised(e, sid, "looper:start") {
		t.Error("looper:start is not advertised")
	}
}
