package loop_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/loop/mcp/mcptest"
)

// The test binary doubles as the mcptest stdio MCP server.
func init() { mcptest.ServeIfRequested() }

// stdioMCP is an editor's stdio MCP server entry that runs this test
// binary as the mcptest server in mode.
func stdioMCP(name, mode string, env ...string) acp.MCPServer {
	s := acp.MCPServer{Name: name, Command: os.Args[0], Args: []string{}}
	for _, e := range append(mcptest.Env(mode), env...) {
		k, v, _ := strings.Cut(e, "=")
		s.Env = append(s.Env, acp.EnvVariable{Name: k, Value: v})
	}
	return s
}

// newSessionWith opens a session in h.Cwd with servers.
func newSessionWith(t *testing.T, h *looptest.Harness, servers ...acp.MCPServer) string {
	t.Helper()
	var resp acp.NewSessionResponse
	if err := h.Editor.Call(h.Ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: h.Cwd, MCPServers: servers}, &resp); err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return resp.SessionID
}

// requestTools maps the tool names of a recorded model request to their
// definitions.
func requestTools(req map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	list, _ := req["tools"].([]any)
	for _, x := range list {
		t := x.(map[string]any)
		out[t["name"].(string)] = t
	}
	return out
}

func mcpNames(req map[string]any) []string {
	var out []string
	for name := range requestTools(req) {
		if strings.HasPrefix(name, "mcp__") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func toolCallsOf(updates []acp.SessionUpdate) map[string]*acp.ToolCall {
	out := map[string]*acp.ToolCall{}
	for _, u := range updates {
		if c, ok := u.(*acp.ToolCall); ok {
			out[c.ToolCallID] = c
		}
	}
	return out
}

// A stdio and an http server's tools are offered to the model with their
// schemas and approved through session/request_permission, read-only hint
// or not (a server's annotations are not trusted), and run.
func TestMCPToolsApprovedThroughPermission(t *testing.T) {
	web := mcptest.NewHTTPServer()
	t.Cleanup(web.Close)
	h := looptest.NewHarness(t, looptest.Options{},
		looptest.StreamBlocks("tool_use",
			looptest.ToolUse("toolu_e", "mcp__t__echo", map[string]any{"text": "hi"}),
			looptest.ToolUse("toolu_n", "mcp__t__write_note", map[string]any{"note": "remember"}),
			looptest.ToolUse("toolu_g", "mcp__web__greet", map[string]any{"name": "Ada"})),
		looptest.ReplyText("done"))
	if got := h.Init.AgentCapabilities.MCPCapabilities; got != (acp.MCPCapabilities{HTTP: true, SSE: true}) {
		t.Errorf("mcpCapabilities = %+v", got)
	}
	var (
		mu     sync.Mutex
		titles []string
	)
	h.Editor.OnPermission = func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		titles = append(titles, p.ToolCall.Title+" ["+string(p.ToolCall.Kind)+"]")
		mu.Unlock()
		return looptest.Allow(acp.PermAllowOnce)(ctx, p)
	}
	sid := newSessionWith(t, h, stdioMCP("t", ""), acp.MCPServer{Type: "http", Name: "web", URL: web.URL,
		Headers: []acp.HTTPHeader{{Name: "Authorization", Value: "Bearer from-zed"}}})
	if stop := h.Prompt(sid, "use the tools"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	h.Model.CheckAllUsed()
	reqs := h.Model.Requests()
	got := mcpNames(reqs[0])
	want := []string{"mcp__t__add_tool", "mcp__t__crash", "mcp__t__echo", "mcp__t__env", "mcp__t__extra", "mcp__t__fail", "mcp__t__hang",
		"mcp__t__mixed", "mcp__t__odd_name_with_dots", "mcp__t__structured", "mcp__t__write_note", "mcp__web__greet"}
	want = slices.DeleteFunc(want, func(s string) bool { return s == "mcp__t__extra" })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MCP tools offered (-want +got):\n%s", diff)
	}
	echo := requestTools(reqs[0])["mcp__t__echo"]
	wantSchema := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "description": "What to echo"}}, "required": []any{"text"}}
	if diff := cmp.Diff(wantSchema, echo["input_schema"]); diff != "" {
		t.Errorf("echo input_schema (-want +got):\n%s", diff)
	}
	if echo["description"] != "Echoes its text." {
		t.Errorf("echo description = %v", echo["description"])
	}
	wantTitles := []string{`t: Echo (text="hi") [read]`, `t: write_note (note="remember") [destructive] [other]`, `web: greet (name="Ada") [other]`}
	if diff := cmp.Diff(wantTitles, titles); diff != "" {
		t.Errorf("permission requests (-want +got):\n%s", diff)
	}
	for id, want := range map[string]string{"toolu_e": "echo: hi", "toolu_n": "noted: remember", "toolu_g": "hello, Ada"} {
		if text, isErr := looptest.ToolResult(t, reqs[1], id); text != want || isErr {
			t.Errorf("%s: result %q (error %v), want %q", id, text, isErr, want)
		}
	}
	calls := toolCallsOf(h.Editor.Updates(sid))
	if c := calls["toolu_e"]; c == nil || c.Title != `t: Echo (text="hi")` || c.Kind != acp.ToolKindRead {
		t.Errorf("echo tool_call = %+v", c)
	}
	if got := web.Authorizations(); len(got) == 0 || slices.ContainsFunc(got, func(a string) bool { return a != "Bearer from-zed" }) {
		t.Errorf("http requests carried Authorization %q, want the editor's header on each", got)
	}
}

// Claude-style matchers see MCP tools under their mcp__ names: a PreToolUse
// hook matching mcp__.* denies the call before it reaches the server.
func TestMCPToolDeniedByPreToolUseHook(t *testing.T) {
	matcher := regexp.MustCompile(`^mcp__.*`)
	var seen []string
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.PreToolUse && matcher.MatchString(in.ToolName) {
			seen = append(seen, in.ToolName+" "+string(in.ToolInput))
			return hooks.Decision{Permission: hooks.Deny, Reason: "no MCP tools in this project"}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "mcp__t__write_note", map[string]any{"note": "x"})),
		looptest.ReplyText("ok"))
	callLog := filepath.Join(t.TempDir(), "calls")
	sid := newSessionWith(t, h, stdioMCP("t", "", mcptest.EnvCallLog+"="+callLog))
	h.Prompt(sid, "write a note")
	text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_1")
	if !isErr || text != "Denied by a PreToolUse hook: no MCP tools in this project" {
		t.Errorf("result = %q (error %v)", text, isErr)
	}
	if diff := cmp.Diff([]string{`mcp__t__write_note {"note":"x"}`}, seen); diff != "" {
		t.Errorf("PreToolUse saw (-want +got):\n%s", diff)
	}
	if data, err := os.ReadFile(callLog); err == nil && len(data) > 0 {
		t.Errorf("the server was called: %q", data)
	}
}

// A server that crashes mid-session turns its calls into tool errors; the
// turn and the session go on, and the other server keeps working.
func TestMCPServerCrashMidSession(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "mcp__a__crash", map[string]any{})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_2", "mcp__b__echo", map[string]any{"text": "b lives"})),
		looptest.ReplyText("a is gone"),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_3", "mcp__a__echo", map[string]any{"text": "again"})),
		looptest.ReplyText("still gone"))
	sid := newSessionWith(t, h, stdioMCP("a", ""), stdioMCP("b", ""))
	if stop := h.Prompt(sid, "crash a"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	reqs := h.Model.Requests()
	text, isErr := looptest.ToolResult(t, reqs[1], "toolu_1")
	if want := `The MCP server "a" stopped (exit status 3; stderr: mcptest: crashing on purpose) while running crash.`; !isErr || !strings.HasPrefix(text, want) {
		t.Errorf("crash result = %q (error %v), want prefix %q", text, isErr, want)
	}
	if text, isErr := looptest.ToolResult(t, reqs[2], "toolu_2"); isErr || text != "echo: b lives" {
		t.Errorf("b result = %q (error %v)", text, isErr)
	}
	if stop := h.Prompt(sid, "try a again"); stop != acp.StopEndTurn {
		t.Fatalf("second turn stop = %q", stop)
	}
	text, isErr = looptest.ToolResult(t, h.Model.Requests()[4], "toolu_3")
	if !isErr || !strings.HasPrefix(text, `The MCP server "a" is not running: stopped (exit status 3`) {
		t.Errorf("a after the crash = %q (error %v)", text, isErr)
	}
	h.Model.CheckAllUsed()
	before := len(looptest.AgentText(h.Editor.Updates(sid)))
	h.Prompt(sid, "/doctor")
	doctor := looptest.AgentText(h.Editor.Updates(sid))[before:]
	for _, want := range []string{"✗ MCP server a (stdio): stopped (exit status 3", "✓ MCP server b (stdio): 10 tools, 1 prompt"} {
		if !strings.Contains(doctor, want) {
			t.Errorf("/doctor lacks %q:\n%s", want, doctor)
		}
	}
}

// A server that never answers the handshake is reported once, at the start
// of the first turn, and by /doctor; the other server works; a call that
// never gets an answer times out with a clear error.
func TestMCPServerNeverAnswers(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass, Config: func(c *loop.Config) {
		c.MCP.HandshakeTimeout = 3 * time.Second
		c.MCP.CallTimeout = 300 * time.Millisecond
	}},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "mcp__ok__hang", map[string]any{})),
		looptest.ReplyText("it hung"),
		looptest.ReplyText("second turn"))
	sid := newSessionWith(t, h, stdioMCP("silent", "silent"), stdioMCP("ok", ""))
	h.Prompt(sid, "go")
	first := looptest.AgentText(h.Editor.Updates(sid))
	notice := "[cordis: MCP server \"silent\" (stdio) is unavailable: did not answer the MCP handshake within 3s]\n\n"
	if !strings.HasPrefix(first, notice) {
		t.Errorf("first turn text = %q, want it to start with %q", first, notice)
	}
	reqs := h.Model.Requests()
	if names := mcpNames(reqs[0]); len(names) != 10 || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "mcp__silent__") }) {
		t.Errorf("tools offered = %v", names)
	}
	text, isErr := looptest.ToolResult(t, reqs[1], "toolu_1")
	if !isErr || text != `The MCP server "ok" did not answer hang within 300ms; the call was abandoned.` {
		t.Errorf("hang result = %q (error %v)", text, isErr)
	}
	h.Prompt(sid, "again")
	if all := looptest.AgentText(h.Editor.Updates(sid)); strings.Count(all, "is unavailable") != 1 {
		t.Errorf("the failure was shown %d times:\n%s", strings.Count(all, "is unavailable"), all)
	}
	before := len(looptest.AgentText(h.Editor.Updates(sid)))
	h.Prompt(sid, "/doctor")
	if doctor := looptest.AgentText(h.Editor.Updates(sid))[before:]; !strings.Contains(doctor, "✗ MCP server silent (stdio): did not answer the MCP handshake within 3s") {
		t.Errorf("/doctor:\n%s", doctor)
	}
	h.Model.CheckAllUsed()
}

// With a client that takes notices, a failed server is a notice when the
// session opens, not agent text.
func TestMCPFailureAsNotice(t *testing.T) {
	var caps acp.ClientCapabilities
	if err := json.Unmarshal([]byte(`{"session":{"notices":{}}}`), &caps); err != nil {
		t.Fatal(err)
	}
	h := looptest.NewHarness(t, looptest.Options{Caps: caps}, looptest.ReplyText("hello"))
	sid := newSessionWith(t, h, stdioMCP("broken", "exit"))
	h.Prompt(sid, "hi")
	var notices []acp.NoticeUpdate
	for _, u := range h.Editor.Updates(sid) {
		if n, ok := u.(*acp.NoticeUpdate); ok {
			notices = append(notices, *n)
		}
	}
	want := []acp.NoticeUpdate{{Severity: "warning", Title: "MCP server unavailable",
		Description: `MCP server "broken" (stdio) is unavailable: exited during the MCP handshake (exit status 2; stderr: mcptest: missing credentials, giving up)`}}
	if diff := cmp.Diff(want, notices); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
	if text := looptest.AgentText(h.Editor.Updates(sid)); text != "hello" {
		t.Errorf("agent text = %q", text)
	}
}

// A server that changes its tools (notifications/tools/list_changed) has
// the new list offered in the very next model request.
func TestMCPListChangedBeforeNextRequest(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "mcp__t__add_tool", map[string]any{})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_2", "mcp__t__extra", map[string]any{})),
		looptest.ReplyText("done"))
	sid := newSessionWith(t, h, stdioMCP("t", ""))
	h.Prompt(sid, "add a tool and use it")
	reqs := h.Model.Requests()
	if _, ok := requestTools(reqs[0])["mcp__t__extra"]; ok {
		t.Error("extra offered before it was added")
	}
	if _, ok := requestTools(reqs[1])["mcp__t__extra"]; !ok {
		t.Errorf("extra not offered after list_changed: %v", mcpNames(reqs[1]))
	}
	if text, isErr := looptest.ToolResult(t, reqs[2], "toolu_2"); isErr || text != "extra ran" {
		t.Errorf("extra = %q (error %v)", text, isErr)
	}
	h.Model.CheckAllUsed()
}

// MCP prompts are slash commands /mcp__<server>__<prompt> taking positional
// and name=value arguments; their text becomes the user's turn.
func TestMCPPromptAsSlashCommand(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{}, looptest.ReplyText("reviewed"))
	sid := newSessionWith(t, h, stdioMCP("gh", ""))
	h.Prompt(sid, "/mcp__gh__review pr=7 acme/widgets")
	reqs := h.Model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	msgs := reqs[0]["messages"].([]any)
	last, _ := json.Marshal(msgs[len(msgs)-1])
	if !strings.Contains(string(last), `"text":"Review pull request 7 of acme/widgets."`) {
		t.Errorf("user message = %s", last)
	}
	var advertised *acp.AvailableCommand
	for _, u := range h.Editor.Updates(sid) {
		if a, ok := u.(*acp.AvailableCommandsUpdate); ok {
			for i := range a.AvailableCommands {
				if a.AvailableCommands[i].Name == "mcp__gh__review" {
					advertised = &a.AvailableCommands[i]
				}
			}
		}
	}
	if advertised == nil || advertised.Input == nil || advertised.Input.Hint != "<repo> <pr> [focus]" || advertised.Description != "Review a pull request" {
		t.Errorf("advertised = %+v", advertised)
	}
	before := len(looptest.AgentText(h.Editor.Updates(sid)))
	h.Prompt(sid, "/mcp__gh__review acme/widgets")
	if got := looptest.AgentText(h.Editor.Updates(sid))[before:]; !strings.Contains(got, "missing required argument pr") {
		t.Errorf("missing argument: %q", got)
	}
	if n := len(h.Model.Requests()); n != 1 {
		t.Errorf("the failed command reached the model (%d requests)", n)
	}
	before = len(looptest.AgentText(h.Editor.Updates(sid)))
	h.Prompt(sid, "/help")
	if got := looptest.AgentText(h.Editor.Updates(sid))[before:]; !strings.Contains(got, "- /mcp__gh__review <repo> <pr> [focus] — Review a pull request [mcp]") {
		t.Errorf("/help:\n%s", got)
	}
	h.Model.CheckAllUsed()
}

// Closing a session stops its servers' process groups; session/load starts
// them again; the agent exiting stops the rest. No child survives.
func TestMCPProcessesStopWithSessionAndAgent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass}, looptest.ReplyText("loaded"))
	dir := t.TempDir()
	server := func(n int) acp.MCPServer {
		return stdioMCP("t", "", mcptest.EnvPIDFile+"="+filepath.Join(dir, strconv.Itoa(n)), mcptest.EnvChild+"=1")
	}
	sid1 := newSessionWith(t, h, server(1))
	newSessionWith(t, h, server(2))
	p1, p2 := readPIDs(t, filepath.Join(dir, "1")), readPIDs(t, filepath.Join(dir, "2"))
	for _, pid := range append(slices.Clone(p1), p2...) {
		if !processAlive(pid) {
			t.Fatalf("pid %d not running", pid)
		}
	}
	if err := h.Editor.Call(h.Ctx, acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: sid1}, nil); err != nil {
		t.Fatal(err)
	}
	for _, pid := range p1 {
		if processAlive(pid) {
			t.Errorf("pid %d survived session/close", pid)
		}
	}
	for _, pid := range p2 {
		if !processAlive(pid) {
			t.Errorf("pid %d of the other session stopped", pid)
		}
	}

	if err := h.Editor.Call(h.Ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid1, Cwd: h.Cwd, MCPServers: []acp.MCPServer{server(3)}}, nil); err != nil {
		t.Fatal(err)
	}
	h.Prompt(sid1, "still there?")
	if names := mcpNames(h.Model.Requests()[0]); !slices.Contains(names, "mcp__t__echo") {
		t.Errorf("after session/load the tools are %v", names)
	}
	p3 := readPIDs(t, filepath.Join(dir, "3"))

	h.Editor.Close()
	for _, pid := range append(p2, p3...) {
		if processAlive(pid) {
			t.Errorf("pid %d survived the agent's shutdown", pid)
		}
	}
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
	if len(out) != 2 {
		t.Fatalf("%s: pids %v, want the server and its child", path, out)
	}
	return out
}

// processAlive reports whether pid runs and is not a zombie.
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}
