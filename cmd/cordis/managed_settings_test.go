package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
)

// claudeSetup is a machine as a Claude Code user has it: a home with
// ~/.claude, an administrator's policy folder (managed-settings.json and
// managed-settings.d), a project and cordis's state directory.
type claudeSetup struct {
	home, managed, work, state string
}

func newClaudeSetup(t *testing.T) claudeSetup {
	s := claudeSetup{home: t.TempDir(), managed: t.TempDir(), work: t.TempDir(), state: t.TempDir()}
	os.MkdirAll(filepath.Join(s.home, ".claude"), 0o755)
	return s
}

// write writes content to path (relative ones under the project), making
// its folder.
func (s claudeSetup) write(t *testing.T, path, content string) string {
	t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.work, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// env is the environment cordis runs with: the setup's home and policy
// folder.
func (s claudeSetup) env(extra ...string) []string {
	return append([]string{"HOME=" + s.home, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(s.home, ".config"),
		"CORDIS_MANAGED_SETTINGS_DIR=" + s.managed}, extra...)
}

// command is a cordis subcommand run in the setup.
func (s claudeSetup) command(args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Env, cmd.Dir = s.env(), s.work
	return cmd
}

// start runs `cordis acp` in the project, with the setup's home and
// policy folder ($CORDIS_MANAGED_SETTINGS_DIR), against model.
func (s claudeSetup) start(t *testing.T, model *fakeModel, args ...string) *acptest.Editor {
	cmd := exec.Command(binary, append([]string{"acp", "--state-dir", s.state, "--log-level", "debug"}, args...)...)
	cmd.Env = s.env("ANTHROPIC_BASE_URL="+model.srv.URL, "ANTHROPIC_API_KEY=test-key")
	cmd.Dir = s.work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent stderr:\n%s", stderr.String())
		}
	})
	return acptest.StartProcess(t, cmd)
}

// askedTitles records the permission requests an editor is asked and
// answers each with option.
func askedTitles(e *acptest.Editor, option string) func() []string {
	var mu sync.Mutex
	var asked []string
	e.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, p.ToolCall.Title)
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: option}}, nil
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
}

// agentText joins the agent's message chunks of a session.
func agentText(e *acptest.Editor, sid string) string {
	var b strings.Builder
	for _, u := range e.Updates(sid) {
		if c, ok := u.(*acp.AgentMessageChunk); ok {
			b.WriteString(c.Content.Text)
		}
	}
	return b.String()
}

func prompt(t *testing.T, ctx context.Context, e *acptest.Editor, sid, text string) {
	t.Helper()
	if stop, err := e.Prompt(ctx, sid, text); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt %q: %q, %v", text, stop, err)
	}
}

// A policy's deny rule (in managed-settings.d, merged after
// managed-settings.json) beats the user's own allow rule: the call is
// refused without asking, though ~/.claude/settings.json allows it and the
// mode would run it. Without the policy the same call runs unasked.
func TestManagedDenyBeatsUserAllowThroughTheBinary(t *testing.T) {
	for _, withPolicy := range []bool{true, false} {
		ctx := testCtx(t)
		s := newClaudeSetup(t)
		s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(touch:*)"]}}`)
		s.write(t, filepath.Join(s.managed, "managed-settings.json"), `{"permissions": {"deny": ["Bash(rm:*)"]}}`)
		if withPolicy {
			s.write(t, filepath.Join(s.managed, "managed-settings.d", "20-security.json"), `{"permissions": {"deny": ["Bash(touch:*)"]}}`)
		}
		model := newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":"touch made.txt"}`), textReply("done"))
		e := s.start(t, model)
		asked := askedTitles(e, acp.PermAllowOnce)
		e.Initialize(ctx, acp.ClientCapabilities{})
		sid := e.NewSession(ctx, s.work).SessionID
		prompt(t, ctx, e, sid, "make it")
		e.Close()
		_, err := os.Stat(filepath.Join(s.work, "made.txt"))
		if len(asked()) != 0 {
			t.Errorf("policy %v: asked %q; neither the user's allow nor the policy's deny asks", withPolicy, asked())
		}
		switch {
		case withPolicy && err == nil:
			t.Errorf("the policy's deny rule did not stop touch; the user's allow rule won")
		case !withPolicy && err != nil:
			t.Errorf("without the policy the user's allow rule did not run touch: %v", err)
		}
		if withPolicy {
			reqs := model.Requests()
			if last := reqs[len(reqs)-1]; !strings.Contains(last, "Bash(touch:*)") {
				t.Errorf("the model was not told which rule refused the call: %s", last)
			}
		}
	}
}

// allowManagedHooksOnly: the policy's hook runs, the user's and the
// project's (trusted) do not; /hooks cannot switch the bridge that runs
// the policy's hooks off, nor the Codex bridge on; `cordis config show`
// says so.
func TestManagedHooksOnlyThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	marks := t.TempDir()
	hook := func(name string) string {
		return `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo >> ` + filepath.Join(marks, name) + `"}]}]}}`
	}
	s.write(t, filepath.Join(s.home, ".claude", "settings.json"), hook("user"))
	s.write(t, ".claude/settings.json", hook("project"))
	s.write(t, filepath.Join(s.home, ".codex", "hooks.json"), hook("codex"))
	policy := `{"allowManagedHooksOnly": true, ` + strings.TrimPrefix(hook("managed"), "{")
	s.write(t, filepath.Join(s.managed, "managed-settings.json"), policy)
	if out, err := s.command("hooks", "trust", "--cwd", s.work, "--state-dir", s.state).CombinedOutput(); err != nil {
		t.Fatalf("hooks trust: %v\n%s", err, out)
	}

	model := newFakeModel(t, textReply("one"), textReply("two"))
	e := s.start(t, model)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	prompt(t, ctx, e, sid, "first")
	prompt(t, ctx, e, sid, "/hooks disable claude-hooks")
	prompt(t, ctx, e, sid, "/hooks enable codex-hooks")
	prompt(t, ctx, e, sid, "second")
	text := agentText(e, sid)
	e.Close()

	count := func(name string) int {
		data, _ := os.ReadFile(filepath.Join(marks, name))
		return strings.Count(string(data), "\n")
	}
	if n := count("managed"); n != 2 {
		t.Errorf("the managed hook ran %d times, want 2 (it cannot be switched off)", n)
	}
	for _, name := range []string{"user", "project", "codex"} {
		if n := count(name); n != 0 {
			t.Errorf("the %s hook ran %d times under allowManagedHooksOnly", name, n)
		}
	}
	for _, want := range []string{"Hook claude-hooks cannot be disabled", "Hook codex-hooks cannot be enabled"} {
		if !strings.Contains(text, want) {
			t.Errorf("the editor was not told %q:\n%s", want, text)
		}
	}

	out, err := s.command("config", "show", "--cwd", s.work, "--state-dir", s.state).CombinedOutput()
	if err != nil {
		t.Fatalf("config show: %v\n%s", err, out)
	}
	show := string(out)
	if !strings.Contains(show, "✓ managed settings: "+filepath.Join(s.managed, "managed-settings.json")) || !strings.Contains(show, "only managed hooks run") {
		t.Errorf("config show:\n%s", show)
	}
}

// disableBypassPermissionsMode: cordis.yml asks for bypassPermissions, the
// policy forbids it: the session starts in default mode, the mode is not
// offered, and the editor cannot switch to it (set_mode, /mode).
func TestManagedBypassDisabledThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	s.write(t, filepath.Join(s.managed, "managed-settings.json"), `{"permissions": {"disableBypassPermissionsMode": "disable"}}`)
	model := newFakeModel(t)
	e := s.start(t, model, "--config", configFile(t, bypassConfig("")))
	e.Initialize(ctx, acp.ClientCapabilities{})
	sess := e.NewSession(ctx, s.work)
	if sess.Modes == nil || sess.Modes.CurrentModeID != "default" {
		t.Fatalf("the session started in %+v, want default", sess.Modes)
	}
	for _, m := range sess.Modes.AvailableModes {
		if m.ID == "bypassPermissions" {
			t.Errorf("bypassPermissions is offered: %+v", sess.Modes.AvailableModes)
		}
	}
	for _, o := range sess.ConfigOptions {
		data, _ := json.Marshal(o)
		if strings.Contains(string(data), "bypassPermissions") {
			t.Errorf("the mode config option offers bypassPermissions: %s", data)
		}
	}
	err := e.Call(ctx, acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: sess.SessionID, ModeID: "bypassPermissions"}, &struct{}{})
	if err == nil || !strings.Contains(err.Error(), "disableBypassPermissionsMode") {
		t.Errorf("set_mode bypassPermissions = %v, want a refusal naming the setting", err)
	}
	prompt(t, ctx, e, sess.SessionID, "/mode bypassPermissions")
	if text := agentText(e, sess.SessionID); !strings.Contains(text, "disabled") {
		t.Errorf("/mode bypassPermissions was not refused:\n%s", text)
	}
	for _, u := range e.Updates(sess.SessionID) {
		if m, ok := u.(*acp.CurrentModeUpdate); ok && m.CurrentModeID == "bypassPermissions" {
			t.Errorf("the mode switched to bypassPermissions")
		}
	}
}

// `cordis config show` and /doctor list the policy's say over plugins
// and MCP servers next to its permission rules: each managed
// enabledPlugins entry with the file whose entry is in force (a later
// managed-settings.d file overrides the main file), managed-mcp.json in
// force with its servers, and the allowedMcpServers / deniedMcpServers
// lists with the files that set them.
func TestConfigShowListsManagedPluginsAndMCPPolicy(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	main := s.write(t, filepath.Join(s.managed, "managed-settings.json"), `{
  "enabledPlugins": {"lint@team": true, "shady@market": true},
  "allowedMcpServers": [{"serverName": "notes"}, {"serverUrl": "https://*.corp.example/*"}]
}`)
	dropIn := s.write(t, filepath.Join(s.managed, "managed-settings.d", "20-block.json"), `{
  "enabledPlugins": {"shady@market": false},
  "deniedMcpServers": [{"serverCommand": ["npx", "evil-server"]}]
}`)
	mcpFile := s.write(t, filepath.Join(s.managed, "managed-mcp.json"), `{"mcpServers": {"notes": {"command": "notes-server"}}}`)

	want := []string{
		"✓ managed enabledPlugins: lint@team enabled for every project (" + main + ")",
		"✓ managed enabledPlugins: shady@market blocked: no other settings file can enable it (" + dropIn + ")",
		"✓ managed MCP servers: " + mcpFile + " is in force: only its servers run, the editor's and the setup's are refused (notes)",
		"✓ managed allowedMcpServers: serverName notes; serverUrl https://*.corp.example/* (" + main + ")",
		`✓ managed deniedMcpServers: serverCommand ["npx" "evil-server"] (` + dropIn + ")",
	}
	out, err := s.command("config", "show", "--cwd", s.work, "--state-dir", s.state).CombinedOutput()
	if err != nil {
		t.Fatalf("config show: %v\n%s", err, out)
	}
	for _, line := range want {
		if !strings.Contains(string(out), line+"\n") {
			t.Errorf("config show lacks %q:\n%s", line, out)
		}
	}

	e := s.start(t, newFakeModel(t))
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	doctor := slashText(t, e, sid, "/doctor")
	e.Close()
	for _, line := range want {
		if !strings.Contains(doctor, line) {
			t.Errorf("/doctor lacks %q:\n%s", line, doctor)
		}
	}
}
