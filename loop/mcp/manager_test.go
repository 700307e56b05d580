package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/mcp"
	"github.com/cordis-agent/cordis/loop/mcp/mcptest"
	"github.com/cordis-agent/cordis/loop/tools"
)

func init() { mcptest.ServeIfRequested() }

// stdio is a spec that runs this test binary as the mcptest stdio server.
func stdio(name, mode string, env ...string) mcp.Spec {
	return mcp.Spec{Name: name, Command: os.Args[0], Env: append(mcptest.Env(mode), env...)}
}

func start(t *testing.T, opts mcp.Options, specs ...mcp.Spec) *mcp.Manager {
	t.Helper()
	m := mcp.Start(context.Background(), specs, opts)
	t.Cleanup(m.Close)
	return m
}

func toolNames(ts []tools.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return out
}

func find(t *testing.T, ts []tools.Tool, name string) tools.Tool {
	t.Helper()
	tool, ok := tools.ByName(ts, name)
	if !ok {
		t.Fatalf("no tool %s in %v", name, toolNames(ts))
	}
	return tool
}

func call(t *testing.T, tool tools.Tool, input string) tools.Result {
	t.Helper()
	return tool.Run(context.Background(), &tools.Env{}, json.RawMessage(input))
}

func TestStdioTools(t *testing.T) {
	t.Setenv("MCPTEST_AGENT_SECRET", "the agent's own")
	m := start(t, mcp.Options{}, stdio("test srv", "", "MCPTEST_SECRET=from-the-editor"))
	ts := m.Tools(context.Background())
	want := []string{
		"mcp__test_srv__echo", "mcp__test_srv__env", "mcp__test_srv__write_note", "mcp__test_srv__mixed",
		"mcp__test_srv__structured", "mcp__test_srv__fail", "mcp__test_srv__crash", "mcp__test_srv__hang",
		"mcp__test_srv__add_tool", "mcp__test_srv__odd_name_with_dots",
	}
	if diff := cmp.Diff(want, toolNames(ts)); diff != "" {
		t.Fatalf("tool names (-want +got):\n%s", diff)
	}

	echo := find(t, ts, "mcp__test_srv__echo")
	if got, want := string(echo.Schema()), `{"properties":{"text":{"description":"What to echo","type":"string"}},"required":["text"],"type":"object"}`; got != want {
		t.Errorf("echo schema = %s, want %s", got, want)
	}
	// readOnlyHint picks the icon only: the server's word is no approval.
	if echo.ReadOnly() || echo.Kind() != tools.KindRead {
		t.Errorf("echo: ReadOnly %v Kind %q, want not read-only (the hint is not trusted), kind read", echo.ReadOnly(), echo.Kind())
	}
	if got := echo.Describe(nil, json.RawMessage(`{"text":"hi"}`)).Title; got != `test srv: Echo (text="hi")` {
		t.Errorf("echo title = %q", got)
	}
	note := find(t, ts, "mcp__test_srv__write_note")
	if note.ReadOnly() || note.Kind() != tools.KindOther {
		t.Errorf("write_note: ReadOnly %v Kind %q, want not read-only, kind other", note.ReadOnly(), note.Kind())
	}
	if got := note.Describe(nil, json.RawMessage(`{"note":"x"}`)).Title; !strings.HasSuffix(got, "[destructive]") {
		t.Errorf("write_note title = %q, want it marked destructive", got)
	}
	// A schema without a type becomes an object schema.
	if got := string(find(t, ts, "mcp__test_srv__odd_name_with_dots").Schema()); got != `{"properties":{},"type":"object"}` {
		t.Errorf("odd schema = %s", got)
	}

	tests := []struct {
		tool, input string
		want        tools.Result
	}{
		{"echo", `{"text":"hi"}`, tools.Result{Text: "echo: hi"}},
		{"env", `{"name":"MCPTEST_SECRET"}`, tools.Result{Text: "from-the-editor"}},
		// The agent's environment is not passed on, beyond PATH, HOME and the like.
		{"env", `{"name":"MCPTEST_AGENT_SECRET"}`, tools.Result{Text: "(the tool returned no content)"}},
		{"mixed", ``, tools.Result{Text: "first\n[image: image/png, 8 bytes]\n[resource link: file:///tmp/x.txt (x.txt)]\n[resource: mem://note]\nembedded text\nlast",
			// The image also goes to the model.
			Images: []tools.Image{{MediaType: "image/png", Data: "iVBORw0KGgo="}}}},
		{"structured", `{}`, tools.Result{Text: `{"answer":42}`}},
		{"fail", `{}`, tools.Result{Text: "it failed", IsError: true}},
		{"odd_name_with_dots", `{}`, tools.Result{Text: "MCP server \"test srv\" failed to run odd name/with.dots", IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			got := call(t, find(t, ts, "mcp__test_srv__"+tt.tool), tt.input)
			if tt.tool == "odd_name_with_dots" {
				// The server does not know the tool: a protocol error.
				if !got.IsError || !strings.Contains(got.Text, "failed to run odd name/with.dots") || !strings.Contains(got.Text, "unknown tool") {
					t.Errorf("got %+v", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if st := m.Status(); len(st) != 1 || st[0].Line() != "✓ MCP server test srv (stdio): 10 tools, 1 prompt" {
		t.Errorf("status = %+v", st)
	}
	if f := m.Failures(); f != nil {
		t.Errorf("failures = %v", f)
	}
}

func TestStartFailuresDoNotStopOthers(t *testing.T) {
	m := start(t, mcp.Options{},
		stdio("ok", ""),
		stdio("exits", "exit"),
		mcp.Spec{Name: "missing", Command: filepath.Join(t.TempDir(), "no-such-server")},
		mcp.Spec{Name: "weird", Type: "ws", URL: "ws://x"},
	)
	if got := toolNames(m.Tools(context.Background())); len(got) != 10 || !strings.HasPrefix(got[0], "mcp__ok__") {
		t.Errorf("tools = %v, want the 10 tools of ok only", got)
	}
	fails := m.Failures()
	want := []string{
		`MCP server "exits" (stdio) is unavailable: exited during the MCP handshake (exit status 2; stderr: mcptest: missing credentials, giving up)`,
		`MCP server "missing" (stdio) is unavailable: could not start `,
		`MCP server "weird" (ws) is unavailable: unknown transport type "ws" (valid: stdio, http, sse)`,
	}
	if len(fails) != len(want) {
		t.Fatalf("failures = %q", fails)
	}
	for i := range want {
		if !strings.HasPrefix(fails[i], want[i]) {
			t.Errorf("failure %d = %q, want prefix %q", i, fails[i], want[i])
		}
	}
	if again := m.Failures(); again != nil {
		t.Errorf("failures reported twice: %v", again)
	}
	var lines []string
	for _, st := range m.Status() {
		lines = append(lines, st.Line()[:len("✓ MCP server ")+2])
	}
	if diff := cmp.Diff([]string{"✓ MCP server ok", "✗ MCP server ex", "✗ MCP server mi", "✗ MCP server we"}, lines); diff != "" {
		t.Errorf("status lines (-want +got):\n%s", diff)
	}
}

// A server that never answers the handshake fails after the handshake
// timeout; the session does not wait longer.
func TestHandshakeTimeout(t *testing.T) {
	m := start(t, mcp.Options{HandshakeTimeout: 300 * time.Millisecond}, stdio("silent", "silent"))
	want := []string{`MCP server "silent" (stdio) is unavailable: did not answer the MCP handshake within 300ms`}
	if diff := cmp.Diff(want, m.Failures()); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if ts := m.Tools(context.Background()); len(ts) != 0 {
		t.Errorf("tools = %v", toolNames(ts))
	}
}

func TestCrashMidSession(t *testing.T) {
	m := start(t, mcp.Options{}, stdio("a", ""), stdio("b", ""))
	ts := m.Tools(context.Background())
	got := call(t, find(t, ts, "mcp__a__crash"), `{}`)
	want := `The MCP server "a" stopped (exit status 3; stderr: mcptest: crashing on purpose) while running crash.`
	if !got.IsError || !strings.HasPrefix(got.Text, want) {
		t.Errorf("crash = %+v, want an error starting %q", got, want)
	}
	got = call(t, find(t, ts, "mcp__a__echo"), `{"text":"x"}`)
	if !got.IsError || !strings.Contains(got.Text, `The MCP server "a" is not running: stopped (exit status 3`) {
		t.Errorf("echo after crash = %+v", got)
	}
	if got := call(t, find(t, ts, "mcp__b__echo"), `{"text":"still here"}`); got.IsError || got.Text != "echo: still here" {
		t.Errorf("the other server: %+v", got)
	}
	if st := m.Status(); st[0].OK || !strings.Contains(st[0].Line(), "stopped (exit status 3") || !st[1].OK {
		t.Errorf("status = %+v", st)
	}
}

func TestCallTimeoutAndCancel(t *testing.T) {
	m := start(t, mcp.Options{CallTimeout: 300 * time.Millisecond}, stdio("s", ""))
	ts := m.Tools(context.Background())
	hang := find(t, ts, "mcp__s__hang")
	got := call(t, hang, `{}`)
	if !got.IsError || got.Text != `The MCP server "s" did not answer hang within 300ms; the call was abandoned.` {
		t.Errorf("hang = %+v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tools.Result)
	go func() { done <- hang.Run(ctx, &tools.Env{}, json.RawMessage(`{}`)) }()
	cancel()
	if got := <-done; !got.IsError || !strings.Contains(got.Text, "cancelled") {
		t.Errorf("cancelled hang = %+v", got)
	}
	if got := call(t, find(t, ts, "mcp__s__echo"), `{"text":"ok"}`); got.Text != "echo: ok" {
		t.Errorf("echo after a timeout = %+v", got)
	}
}

func TestListChanged(t *testing.T) {
	m := start(t, mcp.Options{}, stdio("s", ""))
	ts := m.Tools(context.Background())
	if _, ok := tools.ByName(ts, "mcp__s__extra"); ok {
		t.Fatal("extra listed before add_tool")
	}
	if got := call(t, find(t, ts, "mcp__s__add_tool"), `{}`); got.Text != "added extra" {
		t.Fatalf("add_tool = %+v", got)
	}
	// The notification came before the result, so the very next Tools
	// sees the new tool.
	ts = m.Tools(context.Background())
	if got := call(t, find(t, ts, "mcp__s__extra"), `{}`); got.Text != "extra ran" {
		t.Errorf("extra = %+v", got)
	}
}

func TestPromptCommands(t *testing.T) {
	m := start(t, mcp.Options{}, stdio("gh", ""))
	gen, cmds := m.Commands(context.Background())
	if len(cmds) != 1 {
		t.Fatalf("commands = %v", cmds)
	}
	sp := commands.SpecOf(cmds[0])
	if sp.Name != "mcp__gh__review" || sp.ArgumentHint != "<repo> <pr> [focus]" || sp.Source != commands.SourceMCP || sp.Description != "Review a pull request" {
		t.Errorf("spec = %+v", sp)
	}
	if gen2, _ := m.Commands(context.Background()); gen2 != gen {
		t.Errorf("generation changed without a change: %d then %d", gen, gen2)
	}
	run := func(args string) commands.Intent {
		return cmds[0].(*commands.Local).Run(context.Background(), &commands.Invocation{Name: sp.Name, Args: args})
	}
	tests := []struct {
		args string
		want commands.Intent
	}{
		{"acme/widgets 12", commands.SubmitPrompt{Text: "Review pull request 12 of acme/widgets."}},
		{"pr=12 acme/widgets", commands.SubmitPrompt{Text: "Review pull request 12 of acme/widgets."}},
		{`acme/widgets 12 "error handling"`, commands.SubmitPrompt{Text: "Review pull request 12 of acme/widgets. Focus on error handling."}},
		{"acme/widgets", commands.ShowError{Message: "/mcp__gh__review: missing required argument pr. Usage: /mcp__gh__review <repo> <pr> [focus] (arguments by position or as name=value)."}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, run(tt.args)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestHTTPAndSSE(t *testing.T) {
	srv := mcptest.NewHTTPServer()
	t.Cleanup(srv.Close)
	auth := []mcp.Header{{Name: "Authorization", Value: "Bearer editor-token"}}
	m := start(t, mcp.Options{},
		mcp.Spec{Name: "web", Type: "http", URL: srv.URL, Headers: auth},
		mcp.Spec{Name: "old", Type: "sse", URL: srv.SSEURL, Headers: auth},
	)
	ts := m.Tools(context.Background())
	if diff := cmp.Diff([]string{"mcp__web__greet", "mcp__old__greet"}, toolNames(ts)); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	if got := string(ts[0].Schema()); !strings.Contains(got, `"name":{"description":"who to greet","type":"string"}`) {
		t.Errorf("greet schema = %s", got)
	}
	for _, tool := range ts {
		if got := call(t, tool, `{"name":"Ada"}`); got.IsError || got.Text != "hello, Ada" {
			t.Errorf("%s = %+v", tool.Name(), got)
		}
	}
	_, cmds := m.Commands(context.Background())
	if len(cmds) != 2 || commands.SpecOf(cmds[0]).Name != "mcp__web__hello" {
		t.Fatalf("commands = %v", cmds)
	}
	got := cmds[0].(*commands.Local).Run(context.Background(), &commands.Invocation{Args: "who=Grace"})
	if diff := cmp.Diff(commands.SubmitPrompt{Text: "Say hello to Grace."}, got); diff != "" {
		t.Errorf("prompt (-want +got):\n%s", diff)
	}
	for _, a := range srv.Authorizations() {
		if a != "Bearer editor-token" {
			t.Fatalf("a request came without the configured header: %q (all: %q)", a, srv.Authorizations())
		}
	}
	if n := len(srv.Authorizations()); n == 0 {
		t.Fatal("no requests recorded")
	}
}

// Close stops every process of a stdio server's group, children included.
func TestCloseStopsProcessGroups(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	pidfile := filepath.Join(t.TempDir(), "pids")
	m := mcp.Start(context.Background(), []mcp.Spec{stdio("s", "", mcptest.EnvPIDFile+"="+pidfile, mcptest.EnvChild+"=1")}, mcp.Options{})
	pids := readPIDs(t, pidfile)
	if len(pids) != 2 {
		t.Fatalf("pids = %v, want the server and its child", pids)
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("pid %d is not running before Close", pid)
		}
	}
	m.Close()
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("pid %d survived Close", pid)
		}
	}
	m.Close() // idempotent
}

func readPIDs(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(data)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || !slices.Contains([]byte{'Z', 'X'}, s[i+2])
}
