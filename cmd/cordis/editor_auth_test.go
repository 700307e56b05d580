package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
)

// zedCapabilities is what Zed sends in initialize: its fs and terminals,
// terminal logins in both forms.
func zedCapabilities() acp.ClientCapabilities {
	caps := acp.ClientCapabilities{FS: acp.FileSystemCapability{ReadTextFile: true, WriteTextFile: true}, Terminal: true,
		Meta: acp.Meta{"terminal_output": true, "terminal-auth": true}}
	caps.Auth = &struct {
		Terminal bool `json:"terminal,omitempty"`
	}{Terminal: true}
	return caps
}

func rpcCode(err error) int {
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		return int(rpcErr.Code)
	}
	return 0
}

// A broken cordis.yml no longer kills the agent before initialize: the
// editor gets its handshake, then every session request fails with the
// file, line and field.
func TestBrokenConfigAnswersInitialize(t *testing.T) {
	ctx := testCtx(t)
	dir := t.TempDir()
	broken := filepath.Join(dir, "cordis.yml")
	os.WriteFile(broken, []byte("- id: llm\n  name: llm/anthropic\n  config: {model: m, modle: x}\n"), 0o644)
	model := newFakeModel(t)
	e, _ := startAgent(t, model, t.TempDir(), dir, "--config", broken)
	init := e.Initialize(ctx, zedCapabilities())
	if !init.AgentCapabilities.LoadSession {
		t.Fatalf("initialize = %+v", init)
	}
	var resp acp.NewSessionResponse
	err := e.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}}, &resp)
	for _, want := range []string{broken + ":3:", `unknown field "modle"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("session/new error = %v, want it to name %q", err, want)
		}
	}
	err = e.Call(ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: "0123456789abcdef0123456789abcdef", Cwd: dir, MCPServers: []acp.MCPServer{}}, &resp)
	if err == nil || !strings.Contains(err.Error(), `unknown field "modle"`) {
		t.Fatalf("session/load error = %v", err)
	}
}

// loginModel is a model server that records the x-api-key of each request
// and answers with text naming the key (which cordis must scrub).
type loginModel struct {
	srv  *httptest.Server
	mu   sync.Mutex
	keys []string
}

func newLoginModel(t *testing.T) *loginModel {
	m := &loginModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("x-api-key")
		m.mu.Lock()
		m.keys = append(m.keys, key)
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(textReply("The key I was given is " + key)))
	}))
	t.Cleanup(m.srv.Close)
	return m
}

// First-run authentication through the terminal login Zed offers: no key
// in the environment, `cordis acp login` (the typed method's command
// line) stores it 0600, authenticate then succeeds in the same agent,
// the provider uses the stored key, its value is scrubbed from what the
// editor sees, and logout removes it.
func TestTerminalLoginStoresTheKey(t *testing.T) {
	ctx := testCtx(t)
	model := newLoginModel(t)
	env := append(isolatedEnv(t, ""), "ANTHROPIC_BASE_URL="+model.srv.URL)
	home := strings.TrimPrefix(env[0], "HOME=")
	work := t.TempDir()
	cmd := exec.Command(binary, "acp", "--state-dir", t.TempDir())
	cmd.Env, cmd.Dir = env, work
	e := acptest.StartProcess(t, cmd)

	init := e.Initialize(ctx, zedCapabilities())
	var login *acp.AuthMethod
	ids := []string{}
	for i, m := range init.AuthMethods {
		ids = append(ids, m.ID)
		if m.ID == "cordis-login" {
			login = &init.AuthMethods[i]
		}
	}
	if len(ids) != 2 || ids[0] != "ANTHROPIC_API_KEY" || login == nil {
		t.Fatalf("auth methods = %v, want the variable (for acpx) and cordis-login", ids)
	}
	meta, _ := login.Meta["terminal-auth"].(map[string]any)
	if login.Type != "terminal" || strings.Join(login.Args, " ") != "login" || meta["command"] != binary || meta["label"] == nil {
		t.Fatalf("cordis-login = %+v, want a terminal method with Zed's _meta[\"terminal-auth\"] {command, args, label}", login)
	}
	if init.AgentCapabilities.Auth == nil || init.AgentCapabilities.Auth.Logout == nil {
		t.Fatal("auth.logout is not advertised")
	}
	authenticate := func() error {
		return e.Call(ctx, acp.MethodAuthenticate, acp.AuthenticateRequest{MethodID: "ANTHROPIC_API_KEY"}, &struct{}{})
	}
	if err := authenticate(); rpcCode(err) != acp.CodeAuthRequired || !strings.Contains(err.Error(), "cordis login") {
		t.Fatalf("authenticate without a key = %v, want auth_required naming cordis login", err)
	}

	const key = "sk-ant-stored-0123456789"
	loginCmd := exec.Command(binary, "acp", "--state-dir", t.TempDir(), "login")
	loginCmd.Env, loginCmd.Dir = env, work
	loginCmd.Stdin = strings.NewReader(key + "\n")
	var out bytes.Buffer
	loginCmd.Stdout, loginCmd.Stderr = &out, &out
	if err := loginCmd.Run(); err != nil {
		t.Fatalf("cordis acp login: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), key) {
		t.Fatalf("login printed the key: %s", out.String())
	}
	credPath := filepath.Join(home, ".config", "cordis", "credentials")
	fi, err := os.Stat(credPath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credential file: %v, mode %v; want 0600", err, fi)
	}

	if err := authenticate(); err != nil {
		t.Fatalf("authenticate after login: %v", err)
	}
	sid := e.NewSession(ctx, work).SessionID
	if _, err := e.Prompt(ctx, sid, "hello"); err != nil {
		t.Fatal(err)
	}
	if len(model.keys) != 1 || model.keys[0] != key {
		t.Fatalf("the model got keys %q, want the stored one", model.keys)
	}
	for _, f := range e.Frames() {
		if bytes.Contains(f, []byte(key)) {
			t.Fatalf("the stored key reached the editor: %s", f)
		}
	}
	if !strings.Contains(acptestText(e.Updates(sid)), "[REDACTED:ANTHROPIC_API_KEY]") {
		t.Fatal("the key in the model's answer was not scrubbed")
	}

	if err := e.Call(ctx, acp.MethodLogout, struct{}{}, &struct{}{}); err != nil {
		t.Fatalf("logout: %v", err)
	}
	if _, err := os.Stat(credPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the credential file is still there after logout: %v", err)
	}
	if err := authenticate(); rpcCode(err) != acp.CodeAuthRequired {
		t.Fatalf("authenticate after logout = %v, want auth_required", err)
	}
}

// A client without terminal logins is offered only the variable.
func TestNoTerminalLoginWithoutTheCapability(t *testing.T) {
	ctx := testCtx(t)
	cmd := exec.Command(binary, "acp", "--state-dir", t.TempDir())
	cmd.Env, cmd.Dir = isolatedEnv(t, ""), t.TempDir()
	e := acptest.StartProcess(t, cmd)
	init := e.Initialize(ctx, acp.ClientCapabilities{})
	if len(init.AuthMethods) != 1 || init.AuthMethods[0].ID != "ANTHROPIC_API_KEY" || init.AuthMethods[0].Type != "" {
		t.Fatalf("auth methods = %+v", init.AuthMethods)
	}
}

func acptestText(updates []acp.SessionUpdate) string {
	var b strings.Builder
	for _, u := range updates {
		if c, ok := u.(*acp.AgentMessageChunk); ok {
			b.WriteString(c.Content.Text)
		}
	}
	return b.String()
}

// A malformed user-level ~/.claude/settings.json or ~/.codex/config.toml
// turns its hooks off; the user reads why in the thread (once, with the
// file, line and column), not only in cordis's log.
func TestBrokenUserHookFilesAreToldInTheThread(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t, textReply("one"), toolReply("toolu_1", "Bash", `{"command":"touch made.txt"}`), textReply("two"))
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, ".mcp.json"), []byte(`{"mcpServers": {"notes": {"command": "notes-server"}}}`), 0o644)
	cmd := exec.Command(binary, "acp", "--state-dir", t.TempDir())
	cmd.Env, cmd.Dir = isolatedEnv(t, model.srv.URL), work
	home := strings.TrimPrefix(cmd.Env[0], "HOME=")
	claude := filepath.Join(home, ".claude", "settings.json")
	codex := filepath.Join(home, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(claude), 0o755)
	os.MkdirAll(filepath.Dir(codex), 0o755)
	os.WriteFile(claude, []byte(`{"hooks": {"UserPromptSubmit": [],}}`), 0o644)
	os.WriteFile(codex, []byte("model = \"gpt-5\"\n[[hooks.UserPromptSubmit]\n"), 0o644)
	e := acptest.StartProcess(t, cmd)
	e.OnPermission = func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermRejectOnce}}, nil
	}
	e.Initialize(ctx, zedCapabilities())
	sid := e.NewSession(ctx, work).SessionID
	for _, p := range []string{"first", "second"} {
		if _, err := e.Prompt(ctx, sid, p); err != nil {
			t.Fatal(err)
		}
	}
	text := threadText(e.Updates(sid))
	for _, want := range []string{claude + ":1:", codex + ":2:"} {
		if n := strings.Count(text, want); n != 1 {
			t.Errorf("the thread names %q %d times, want once:\n%s", want, n, text)
		}
	}
	// The broken settings.json also holds the user's permission rules,
	// enabledPlugins and MCP approvals, whose readers fail on it alike:
	// the hook bridge's notice says all that, and no reader says it
	// again, not even when a tool call consults the permission rules.
	// (The .mcp.json notice names the file as the place to approve in.)
	if n := strings.Count(text, claude) - strings.Count(text, "enabledMcpjsonServers in "+claude); n != 1 {
		t.Errorf("the thread names %s %d times, want once:\n%s", claude, n, text)
	}
	for _, want := range []string{"permission rules (deny and ask included)", "enabledPlugins", "MCP server approvals"} {
		if !strings.Contains(text, want) {
			t.Errorf("the notice does not say the file's %s do not apply:\n%s", want, text)
		}
	}
}

// threadText is everything the thread shows as text: messages and
// notices.
func threadText(updates []acp.SessionUpdate) string {
	var b strings.Builder
	for _, u := range updates {
		switch c := u.(type) {
		case *acp.AgentMessageChunk:
			b.WriteString(c.Content.Text)
		case *acp.NoticeUpdate:
			b.WriteString(c.Title + " " + c.Description + "\n")
		}
	}
	return b.String()
}
