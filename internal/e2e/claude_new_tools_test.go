package e2e_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/bridge/claude"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/loop/mcp/mcptest"
	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/google/go-cmp/cmp"
)

// PreToolUse matchers written for Claude Code's tools (WebFetch,
// NotebookEdit, background Bash, TaskOutput and TaskStop under their
// current and older names, AskUserQuestion, WebSearch, Skill, and
// mcp__.* for an editor's MCP tool) fire on cordis's tools of the same
// names, and the hook reads Claude Code's tool_input shape. Each hook saves its input and blocks the call (exit 2), so the
// result also proves the tool did not run.
func TestClaudeHookMatchersFireOnTheNewTools(t *testing.T) {
	dir := t.TempDir()
	calls := []struct {
		matcher, tool string
		input         map[string]any
	}{
		{"WebFetch", "WebFetch", map[string]any{"url": "https://example.com/docs", "prompt": "How to install?"}},
		{"NotebookEdit", "NotebookEdit", map[string]any{"notebook_path": "/p/a.ipynb", "cell_id": "c1", "new_source": "x = 1", "cell_type": "code", "edit_mode": "replace"}},
		{"Bash", "Bash", map[string]any{"command": "npm run dev", "run_in_background": true}},
		{"TaskOutput|BashOutput", "TaskOutput", map[string]any{"task_id": "bash_1", "block": false, "timeout": 1000}},
		{"TaskOutput|BashOutput", "BashOutput", map[string]any{"bash_id": "bash_1"}},
		{"TaskStop|KillShell", "TaskStop", map[string]any{"task_id": "bash_1"}},
		{"TaskStop|KillShell", "KillShell", map[string]any{"shell_id": "bash_1"}},
		{"AskUserQuestion", "AskUserQuestion", map[string]any{"questions": []any{map[string]any{
			"question": "Which?", "header": "Pick", "multiSelect": false,
			"options": []any{map[string]any{"label": "A", "description": "a"}, map[string]any{"label": "B", "description": "b"}}}}}},
		{"WebSearch", "WebSearch", map[string]any{"query": "go 1.26 release notes", "allowed_domains": []any{"go.dev"}}},
		{"Skill", "Skill", map[string]any{"skill": "pdf", "args": "report.pdf"}},
		{"mcp__.*", "mcp__docs__greet", map[string]any{"name": "Ada"}},
	}
	var entries []any
	seen := map[string]bool{}
	for _, c := range calls {
		if seen[c.matcher] {
			continue
		}
		seen[c.matcher] = true
		entries = append(entries, map[string]any{"matcher": c.matcher, "hooks": []any{map[string]any{
			"type":    "command",
			"command": `cat > "$(mktemp "` + dir + `/input.XXXXXX")"; echo "blocked by the ` + c.matcher + ` hook" >&2; exit 2`,
		}}})
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": entries}})
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	p := hooks.NewPipeline()
	claude.New(claude.Config{Path: path}, claude.Options{Grace: 200 * time.Millisecond}).Register(p)

	var uses []looptest.Block
	for i, c := range calls {
		uses = append(uses, looptest.ToolUse("toolu_"+string(rune('a'+i)), c.tool, c.input))
	}
	h := looptest.NewHarness(t, looptest.Options{Hooks: p, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", uses...), looptest.ReplyText("ok"))
	docs := mcptest.NewHTTPServer()
	t.Cleanup(docs.Close)
	h.Prompt(sessionWithMCP(t, h, acp.MCPServer{Type: "http", Name: "docs", URL: docs.URL}), "go")

	req := h.Model.Requests()[1]
	for i, c := range calls {
		text, isErr := looptest.ToolResult(t, req, "toolu_"+string(rune('a'+i)))
		if !isErr || !strings.Contains(text, "blocked by the "+c.matcher+" hook") {
			t.Errorf("%s: result %q (error %v), want the %s hook's block", c.tool, text, isErr, c.matcher)
		}
	}
	if calls := docs.Calls(); len(calls) != 0 {
		t.Errorf("the MCP server was called (%q) though the hook blocked the call", calls)
	}
	saved, _ := filepath.Glob(filepath.Join(dir, "input.*"))
	if len(saved) != len(calls) {
		t.Fatalf("the hooks ran %d times, want %d", len(saved), len(calls))
	}
	got := map[string]map[string]any{}
	for _, f := range saved {
		var in struct {
			ToolName  string         `json:"tool_name"`
			ToolInput map[string]any `json:"tool_input"`
		}
		data, _ := os.ReadFile(f)
		if err := json.Unmarshal(data, &in); err != nil {
			t.Fatalf("hook input %s: %v", data, err)
		}
		got[in.ToolName] = in.ToolInput
	}
	for _, c := range calls {
		want, _ := json.Marshal(c.input)
		var wantMap map[string]any
		_ = json.Unmarshal(want, &wantMap)
		if diff := cmp.Diff(wantMap, got[c.tool]); diff != "" {
			t.Errorf("%s tool_input (-want +got):\n%s", c.tool, diff)
		}
	}
}

// sessionWithMCP opens a session in h.Cwd with the editor's MCP servers.
func sessionWithMCP(t *testing.T, h *looptest.Harness, servers ...acp.MCPServer) string {
	t.Helper()
	var resp acp.NewSessionResponse
	if err := h.Editor.Call(h.Ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: h.Cwd, MCPServers: servers}, &resp); err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return resp.SessionID
}

// PostToolUse matchers written for Claude Code fire after the new tools
// run, with the tool_input the model sent and a tool_response; a
// background Bash call's response has the shape Claude Code documents
// for Bash ({stdout, stderr, interrupted, isImage}), its stdout saying
// which task was started.
func TestClaudePostToolUseOnTheNewTools(t *testing.T) {
	dir := t.TempDir()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<h1>Docs</h1>"))
	}))
	t.Cleanup(site.Close)
	docs := mcptest.NewHTTPServer()
	t.Cleanup(docs.Close)

	var entries []any
	for _, matcher := range []string{"Bash", "TaskOutput", "TaskStop", "WebFetch", "NotebookEdit", "mcp__.*"} {
		entries = append(entries, map[string]any{"matcher": matcher, "hooks": []any{map[string]any{
			"type": "command", "command": `cat > "$(mktemp "` + dir + `/input.XXXXXX")"`,
		}}})
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PostToolUse": entries}})
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	p := hooks.NewPipeline()
	claude.New(claude.Config{Path: path}, claude.Options{Grace: 200 * time.Millisecond}).Register(p)

	h := looptest.NewHarness(t, looptest.Options{Hooks: p, Mode: loop.ModeBypass, Config: func(c *loop.Config) { c.Web = &tools.WebOptions{AllowPrivate: true} }})
	notebook := filepath.Join(h.Cwd, "a.ipynb")
	if err := os.WriteFile(notebook, []byte(`{"cells":[{"cell_type":"code","execution_count":null,"id":"c1","metadata":{},"outputs":[],"source":["x = 0"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]map[string]any{
		"Bash":             {"command": "echo up; sleep 30", "description": "Start a slow server", "run_in_background": true},
		"WebFetch":         {"url": site.URL + "/docs", "prompt": "What is it?"},
		"NotebookEdit":     {"notebook_path": notebook, "cell_id": "c1", "new_source": "x = 1", "cell_type": "code", "edit_mode": "replace"},
		"mcp__docs__greet": {"name": "Ada"},
		"TaskOutput":       {"task_id": "bash_1", "block": false, "timeout": 1000},
		"TaskStop":         {"task_id": "bash_1"},
	}
	use := func(name string) looptest.Block {
		return looptest.ToolUse("toolu_"+strings.ToLower(name), name, inputs[name])
	}
	h.Model.Append(
		looptest.StreamBlocks("tool_use", use("Bash"), use("WebFetch"), use("NotebookEdit"), use("mcp__docs__greet")),
		looptest.StreamBlocks("tool_use", use("TaskOutput")),
		looptest.StreamBlocks("tool_use", use("TaskStop")),
		looptest.ReplyText("ok"))
	h.Prompt(sessionWithMCP(t, h, acp.MCPServer{Type: "http", Name: "docs", URL: docs.URL}), "go")

	saved, _ := filepath.Glob(filepath.Join(dir, "input.*"))
	got := map[string]map[string]json.RawMessage{}
	for _, f := range saved {
		var in map[string]json.RawMessage
		data, _ := os.ReadFile(f)
		if err := json.Unmarshal(data, &in); err != nil {
			t.Fatalf("hook input %s: %v", data, err)
		}
		var name string
		json.Unmarshal(in["tool_name"], &name)
		got[name] = in
	}
	if len(saved) != len(inputs) {
		t.Errorf("PostToolUse ran %d times, want %d (once per tool): %v", len(saved), len(inputs), slices.Sorted(maps.Keys(got)))
	}
	for name, input := range inputs {
		in, ok := got[name]
		if !ok {
			t.Errorf("%s: no PostToolUse input", name)
			continue
		}
		var event string
		var toolInput, toolResponse map[string]any
		json.Unmarshal(in["hook_event_name"], &event)
		json.Unmarshal(in["tool_input"], &toolInput)
		json.Unmarshal(in["tool_response"], &toolResponse)
		want, _ := json.Marshal(input)
		var wantMap map[string]any
		json.Unmarshal(want, &wantMap)
		if diff := cmp.Diff(wantMap, toolInput); diff != "" || event != "PostToolUse" {
			t.Errorf("%s: event %q, tool_input (-want +got):\n%s", name, event, diff)
		}
		if len(toolResponse) == 0 {
			t.Errorf("%s: tool_response = %s, want the tool's output", name, in["tool_response"])
		}
	}
	var bash struct {
		Stdout      *string `json:"stdout"`
		Stderr      *string `json:"stderr"`
		Interrupted *bool   `json:"interrupted"`
		IsImage     *bool   `json:"isImage"`
	}
	if err := json.Unmarshal(got["Bash"]["tool_response"], &bash); err != nil || bash.Stdout == nil || bash.Stderr == nil || bash.Interrupted == nil || bash.IsImage == nil ||
		!strings.HasPrefix(*bash.Stdout, "Command running in background with ID: bash_1") || *bash.Interrupted || *bash.IsImage {
		t.Errorf("background Bash tool_response = %s, want Claude Code's {stdout, stderr, interrupted, isImage} naming the task", got["Bash"]["tool_response"])
	}
	if r := string(got["mcp__docs__greet"]["tool_response"]); !strings.Contains(r, "hello, Ada") {
		t.Errorf("MCP tool_response = %s, want the server's answer", r)
	}
}
