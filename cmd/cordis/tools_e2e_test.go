package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
)

// Claude Code's later tools through the real binary, against loopback
// servers (issue 22).

// searchSideReply is the API's answer to a WebSearch side call: one
// search, its result and a cited answer (authored blocks).
func searchSideReply() string {
	return sse(
		ev("message_start", `{"type":"message_start","message":{"id":"msg_s","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":900,"output_tokens":1}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{}}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"zed acp\"}"}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[{"type":"web_search_result","title":"Agent Client Protocol","url":"https://agentclientprotocol.com/","encrypted_content":"EqgfCioI","page_age":null}]}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":1}`),
		ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"ACP connects editors and agents."}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":2}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":40,"server_tool_use":{"web_search_requests":1}}}`),
		ev("message_stop", `{"type":"message_stop"}`),
	)
}

// WebSearch with the Anthropic provider: offered under Claude Code's
// name, asked for like any call that sends data out, run as a side call
// with the API's web search tool, its pages returned to the model and
// the search billed in the cost the editor is shown.
func TestBinaryWebSearch(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t,
		toolReply("toolu_ws", "WebSearch", `{"query":"zed acp"}`),
		searchSideReply(),
		textReply("Found it."))
	e, _ := startAgent(t, model, t.TempDir(), t.TempDir())
	var asked []string
	e.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked = append(asked, p.ToolCall.Title)
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
	}
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, t.TempDir()).SessionID
	if stop, err := e.Prompt(ctx, sid, "what is ACP?"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %v %v", stop, err)
	}
	if len(asked) != 1 || asked[0] != "Search the web: zed acp" {
		t.Errorf("permission asked for %q, want the search", asked)
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if !strings.Contains(reqs[0], `"name":"WebSearch"`) || strings.Contains(reqs[0], "web_search_20250305") {
		t.Errorf("the main request does not offer WebSearch as a client tool")
	}
	if !strings.Contains(reqs[1], `{"type":"web_search_20250305","name":"web_search","max_uses":8`) || strings.Contains(reqs[1], `"name":"Read"`) {
		t.Errorf("the side call does not offer only the server tool:\n%s", reqs[1])
	}
	text, isErr, ok := sentResult(t, model, "toolu_ws")
	if !ok || isErr || !strings.Contains(text, "[Agent Client Protocol](https://agentclientprotocol.com/)") || !strings.Contains(text, "ACP connects editors and agents.") {
		t.Errorf("tool result = %q (error %v, sent %v)", text, isErr, ok)
	}
	var cost float64
	for _, u := range e.Updates(sid) {
		if uu, ok := u.(*acp.UsageUpdate); ok && uu.Cost != nil {
			cost = uu.Cost.Amount
		}
	}
	if cost < 0.01 {
		t.Errorf("cost shown = %v, want the search's $0.01 included", cost)
	}
}

// A deny rule WebSearch (Claude Code's form, no specifier) stops the
// call before any search: the user is not asked and no side call is made.
func TestBinaryWebSearchDeniedByRule(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t, toolReply("toolu_ws", "WebSearch", `{"query":"zed acp"}`), textReply("ok"))
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{"permissions": map[string]any{"deny": []string{"WebSearch"}}})
	if err := os.WriteFile(filepath.Join(work, ".claude", "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
	e, _ := startAgent(t, model, t.TempDir(), work)
	asked := false
	e.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked = true
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
	}
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	if _, err := e.Prompt(ctx, sid, "search"); err != nil {
		t.Fatal(err)
	}
	if reqs := model.Requests(); len(reqs) != 2 || strings.Contains(reqs[1], "web_search_20250305") {
		t.Errorf("%d requests: a denied search reached the API", len(reqs))
	}
	if text, isErr, _ := sentResult(t, model, "toolu_ws"); !isErr || asked || !strings.Contains(text, "WebSearch") || !strings.Contains(strings.ToLower(text), "den") {
		t.Errorf("denied WebSearch: result %q (error %v), user asked %v", text, isErr, asked)
	}
}

// WebFetch from the binary refuses a loopback address (SSRF): the
// default configuration allows no private addresses.
func TestBinaryWebFetchRefusesLoopback(t *testing.T) {
	ctx := testCtx(t)
	hit := false
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit = true }))
	defer site.Close()
	model := newFakeModel(t,
		toolReply("toolu_wf", "WebFetch", inputJSON(map[string]any{"url": site.URL + "/docs", "prompt": "summary"})),
		textReply("ok"))
	e, _ := startAgent(t, model, t.TempDir(), t.TempDir())
	e.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
	}
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, t.TempDir()).SessionID
	if _, err := e.Prompt(ctx, sid, "fetch it"); err != nil {
		t.Fatal(err)
	}
	text, isErr, ok := sentResult(t, model, "toolu_wf")
	if !ok || !isErr || !strings.Contains(strings.ToLower(text), "loopback") {
		t.Errorf("tool result = %q (error %v), want a refusal of the loopback address", text, isErr)
	}
	if hit {
		t.Errorf("the loopback server was reached")
	}
}

// stepModel is a fakeModel whose answers are computed: step i gets the
// body of request i and returns the SSE answer (it may wait first, for
// what the previous tool call started). Requests past the script stall,
// as fakeModel's do.
func stepModel(t *testing.T, steps ...func(req string) string) *fakeModel {
	f := &fakeModel{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		n := len(f.requests)
		f.requests = append(f.requests, string(data))
		f.mu.Unlock()
		if n >= len(steps) {
			<-r.Context().Done()
			return
		}
		body := steps[n](string(data))
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// reply is a step that answers body whatever the request.
func reply(body string) func(string) string { return func(string) string { return body } }

// localSite is a loopback web site as WebFetch meets one: an HTML page, a
// redirect to another host, and a page far larger than what is returned.
// It records the headers of every request.
type localSite struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func newLocalSite(t *testing.T) *localSite {
	s := &localSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("/docs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html><head><title>Widget docs</title><style>h1{color:red}</style></head>
<body><h1>Installing widgets</h1><p>Run <code>widget init</code>, then read <a href="/docs/config">the configuration page</a>.</p>
<ul><li>fast</li><li>small</li></ul></body></html>`)
	})
	mux.HandleFunc("/old-docs", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://widgets.example.org/docs", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/changelog", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>")
		for i := range 5000 {
			fmt.Fprintf(w, "<p>release %d: fixes</p>\n", i)
		}
		io.WriteString(w, "</body></html>")
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// webFetchConfig is a user cordis.yml (default permission mode) whose
// WebFetch may reach 127.0.0.1 and returns at most 3000 characters.
const webFetchUserConfig = `- id: agent
  name: agent
  config:
    webFetch: {allowPrivateRanges: [127.0.0.1], maxChars: 3000}
- id: llm
  name: llm/anthropic
  config: {model: claude-sonnet-4-5, maxRetries: -1}
`

// WebFetch through the binary against a local site the user's config
// allows: the HTML page reaches the model as Markdown, a redirect to
// another host is reported and not followed, a large page is cut to the
// configured size with a marker, each fetch is asked for by host, and no
// key or cookie reaches the site.
func TestBinaryWebFetchLocalSite(t *testing.T) {
	ctx := testCtx(t)
	site := newLocalSite(t)
	model := newFakeModel(t,
		toolReply("toolu_doc", "WebFetch", inputJSON(map[string]any{"url": site.URL + "/docs", "prompt": "how to install?"})),
		toolReply("toolu_old", "WebFetch", inputJSON(map[string]any{"url": site.URL + "/old-docs", "prompt": "how to install?"})),
		toolReply("toolu_big", "WebFetch", inputJSON(map[string]any{"url": site.URL + "/changelog", "prompt": "latest release?"})),
		textReply("Done."))
	p := startProc(t, model.srv.URL, procOpts{config: webFetchUserConfig})
	var mu sync.Mutex
	var asked []string
	p.e.OnPermission = func(_ context.Context, r *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		asked = append(asked, r.ToolCall.Title)
		mu.Unlock()
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
	}
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	if stop, err := p.e.Prompt(ctx, sid, "read the widget docs"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %v %v", stop, err)
	}
	mu.Lock()
	if len(asked) != 3 || asked[0] != "Fetch "+site.URL+"/docs" {
		t.Errorf("permission asked for %q, want each of the three fetches", asked)
	}
	mu.Unlock()

	doc, isErr, _ := sentResult(t, model, "toolu_doc")
	for _, want := range []string{"# Installing widgets", "Run `widget init`, then read [the configuration page](" + site.URL + "/docs/config).", "- fast", "HTML converted to Markdown"} {
		if isErr || !strings.Contains(doc, want) {
			t.Errorf("the page sent to the model lacks %q (error %v):\n%s", want, isErr, doc)
		}
	}
	if strings.Contains(doc, "<h1>") || strings.Contains(doc, "color:red") {
		t.Errorf("HTML reached the model:\n%s", doc)
	}
	old, isErr, _ := sentResult(t, model, "toolu_old")
	if isErr || !strings.Contains(old, "redirects to a different host: https://widgets.example.org/docs") || !strings.Contains(old, "not followed") {
		t.Errorf("cross-host redirect: %q (error %v)", old, isErr)
	}
	big, isErr, _ := sentResult(t, model, "toolu_big")
	if isErr || !strings.Contains(big, "release 0: fixes") || strings.Contains(big, "release 4999") || !strings.Contains(big, "[content truncated:") || len(big) > 4000 {
		t.Errorf("large page: %d bytes sent (error %v), want it cut to 3000 characters with a marker:\n%.300s", len(big), isErr, big)
	}

	site.mu.Lock()
	defer site.mu.Unlock()
	if len(site.headers) != 3 {
		t.Errorf("the site saw %d requests, want 3 (the redirect not followed)", len(site.headers))
	}
	for _, h := range site.headers {
		if h.Get("X-Api-Key") != "" || h.Get("Authorization") != "" || h.Get("Cookie") != "" {
			t.Errorf("a fetch carried credentials: %v", h)
		}
	}
}

// Claude Code's WebFetch(domain:…) allow rule, from the user's Claude
// settings, lets a fetch of that host run without asking; another host
// is still asked for.
func TestBinaryWebFetchDomainRule(t *testing.T) {
	ctx := testCtx(t)
	site := newLocalSite(t)
	claudeDir := t.TempDir()
	settings, _ := json.Marshal(map[string]any{"permissions": map[string]any{"allow": []string{"WebFetch(domain:127.0.0.1)"}}})
	if err := os.WriteFile(filepath.Join(claudeDir, "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
	localhost := strings.Replace(site.URL, "127.0.0.1", "localhost", 1)
	model := newFakeModel(t,
		toolReply("toolu_ip", "WebFetch", inputJSON(map[string]any{"url": site.URL + "/docs", "prompt": "install?"})),
		toolReply("toolu_name", "WebFetch", inputJSON(map[string]any{"url": localhost + "/docs", "prompt": "install?"})),
		textReply("ok"))
	p := startProc(t, model.srv.URL, procOpts{config: webFetchUserConfig, env: []string{"CLAUDE_CONFIG_DIR=" + claudeDir}})
	var mu sync.Mutex
	var asked []string
	p.e.OnPermission = func(_ context.Context, r *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r.ToolCall.Title)
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermRejectOnce}}, nil
	}
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	if _, err := p.e.Prompt(ctx, sid, "read the docs"); err != nil {
		t.Fatal(err)
	}
	if text, isErr, _ := sentResult(t, model, "toolu_ip"); isErr || !strings.Contains(text, "# Installing widgets") {
		t.Errorf("the allowed host: %q (error %v)", text, isErr)
	}
	mu.Lock()
	if len(asked) != 1 || asked[0] != "Fetch "+localhost+"/docs" {
		t.Errorf("asked %q, want only the host the rule does not name", asked)
	}
	mu.Unlock()
	if text, isErr, _ := sentResult(t, model, "toolu_name"); !isErr || strings.Contains(text, "Installing") {
		t.Errorf("the rejected host: %q (error %v)", text, isErr)
	}
}

// NotebookEdit through the binary: a cell replaced, one inserted and one
// deleted; the notebook stays valid JSON with its metadata, and the
// editor is shown each edit's diff, in the permission request and on the
// finished card.
func TestBinaryNotebookEdit(t *testing.T) {
	ctx := testCtx(t)
	work, _ := filepath.EvalSymlinks(t.TempDir())
	nbPath := filepath.Join(work, "analysis.ipynb")
	const notebook = `{
 "cells": [
  {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Sales\n", "Quarterly numbers."]},
  {"cell_type": "code", "execution_count": 3, "id": "load", "metadata": {"tags": ["setup"]}, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["loaded\n"]}], "source": ["import pandas as pd\n", "df = pd.read_csv('q1.csv')"]},
  {"cell_type": "code", "execution_count": 4, "id": "scratch", "metadata": {}, "outputs": [], "source": ["df.head()"]}
 ],
 "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}, "language_info": {"name": "python", "version": "3.12.1"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
`
	if err := os.WriteFile(nbPath, []byte(notebook), 0o644); err != nil {
		t.Fatal(err)
	}
	model := newFakeModel(t,
		toolReply("toolu_rep", "NotebookEdit", inputJSON(map[string]any{"notebook_path": nbPath, "cell_id": "load", "new_source": "import pandas as pd\ndf = pd.read_csv('q2.csv')"})),
		toolReply("toolu_ins", "NotebookEdit", inputJSON(map[string]any{"notebook_path": nbPath, "cell_id": "load", "edit_mode": "insert", "cell_type": "markdown", "new_source": "## Second quarter"})),
		toolReply("toolu_del", "NotebookEdit", inputJSON(map[string]any{"notebook_path": nbPath, "cell_id": "scratch", "edit_mode": "delete", "new_source": ""})),
		textReply("Updated."))
	e, _ := startAgent(t, model, t.TempDir(), work)
	var mu sync.Mutex
	var previews []acp.ToolCallContent
	e.OnPermission = func(_ context.Context, r *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		previews = append(previews, r.ToolCall.Content...)
		mu.Unlock()
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
	}
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	if stop, err := e.Prompt(ctx, sid, "use q2"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %v %v", stop, err)
	}
	for _, id := range []string{"toolu_rep", "toolu_ins", "toolu_del"} {
		if text, isErr, ok := sentResult(t, model, id); !ok || isErr {
			t.Errorf("%s: %q (error %v, sent %v)", id, text, isErr, ok)
		}
	}

	data, err := os.ReadFile(nbPath)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			CellType       string          `json:"cell_type"`
			ID             string          `json:"id"`
			Metadata       json.RawMessage `json:"metadata"`
			Source         json.RawMessage `json:"source"`
			Outputs        []any           `json:"outputs"`
			ExecutionCount *int            `json:"execution_count"`
		} `json:"cells"`
		Metadata      map[string]any `json:"metadata"`
		NBFormat      int            `json:"nbformat"`
		NBFormatMinor int            `json:"nbformat_minor"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatalf("the notebook is no longer JSON: %v\n%s", err, data)
	}
	if nb.NBFormat != 4 || nb.NBFormatMinor != 5 || fmt.Sprint(nb.Metadata["kernelspec"]) != "map[display_name:Python 3 language:python name:python3]" || nb.Metadata["language_info"] == nil {
		t.Errorf("notebook metadata lost: %+v", nb)
	}
	var ids []string
	for _, c := range nb.Cells {
		ids = append(ids, c.ID+":"+c.CellType)
	}
	if len(nb.Cells) != 3 || ids[0] != "intro:markdown" || ids[1] != "load:code" || ids[2] == "" || !strings.HasSuffix(ids[2], ":markdown") {
		t.Fatalf("cells %v, want intro, load, then the inserted markdown cell (scratch deleted)", ids)
	}
	load := nb.Cells[1]
	var meta bytes.Buffer
	json.Compact(&meta, load.Metadata)
	if !strings.Contains(string(load.Source), "q2.csv") || meta.String() != `{"tags":["setup"]}` || len(load.Outputs) != 0 || load.ExecutionCount != nil {
		t.Errorf("replaced cell: source %s, metadata %s, outputs %v, count %v (want the new source, its metadata, outputs cleared)", load.Source, load.Metadata, load.Outputs, load.ExecutionCount)
	}
	if !strings.Contains(string(nb.Cells[2].Source), "## Second quarter") {
		t.Errorf("inserted cell source %s", nb.Cells[2].Source)
	}

	// The editor saw the diffs: before approving, and on the cards.
	mu.Lock()
	defer mu.Unlock()
	diffOf := func(content []acp.ToolCallContent, substr string) bool {
		for _, c := range content {
			if c.Type == "diff" && c.Path == nbPath && c.NewText != nil && c.OldText != nil && strings.Contains(*c.NewText, substr) != strings.Contains(*c.OldText, substr) {
				return true
			}
		}
		return false
	}
	if !diffOf(previews, "q2.csv") || !diffOf(previews, "Second quarter") || !diffOf(previews, "df.head()") {
		t.Errorf("the permission requests did not carry the three diffs: %d contents", len(previews))
	}
	var cards []acp.ToolCallContent
	for _, u := range e.Updates(sid) {
		if up, ok := u.(*acp.ToolCallUpdate); ok && up.Status == acp.ToolStatusCompleted {
			cards = append(cards, up.Content...)
		}
	}
	if !diffOf(cards, "q2.csv") || !diffOf(cards, "Second quarter") {
		t.Errorf("the finished cards did not carry the diffs")
	}
}

// waitCount waits until the file at path holds a number of at least n
// and returns it; 0 after a deadline (a deadlock guard only).
func waitCount(path string, n int) int {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(path)
		if got, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && got >= n {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0
}

// ticks are the numbers of the "tick N" lines in a TaskOutput result.
func ticks(text string) []int {
	var out []int
	for line := range strings.Lines(text) {
		if n, ok := strings.CutPrefix(strings.TrimSpace(line), "tick "); ok {
			if i, err := strconv.Atoi(n); err == nil {
				out = append(out, i)
			}
		}
	}
	return out
}

// A background dev-server-like command through the binary: Bash with
// run_in_background returns at once with a task id; TaskOutput read twice
// returns what the server printed, the second read only what came after
// the first; TaskStop ends its process group.
func TestBinaryBackgroundShell(t *testing.T) {
	ctx := testCtx(t)
	dir := t.TempDir()
	count, pidFile := filepath.Join(dir, "count"), filepath.Join(dir, "pid")
	// The server's progress is also written to a file, so that the model
	// asks for output only once there is some: the test waits on the
	// command, never on a clock.
	server := "echo $$ > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "\n" +
		"for i in $(seq 1 600); do echo tick $i; echo $i > " + count + ".tmp; mv " + count + ".tmp " + count + "; sleep 0.2; done"
	var model *fakeModel
	var firstMax atomic.Int64 // written by the model server's goroutine
	model = stepModel(t,
		reply(toolReply("toolu_bg", "Bash", inputJSON(map[string]any{"command": server, "run_in_background": true, "description": "Start the dev server"}))),
		func(string) string {
			waitCount(count, 3)
			return toolReply("toolu_out1", "TaskOutput", `{"task_id":"bash_1","block":false}`)
		},
		func(string) string {
			text, _, _ := sentResult(t, model, "toolu_out1")
			last := 0
			if got := ticks(text); len(got) > 0 {
				last = got[len(got)-1]
			}
			firstMax.Store(int64(last))
			// Two ticks past the first read: the second has new output.
			waitCount(count, last+3)
			return toolReply("toolu_out2", "TaskOutput", `{"task_id":"bash_1","block":false}`)
		},
		reply(toolReply("toolu_stop", "TaskStop", `{"task_id":"bash_1"}`)),
		reply(textReply("Stopped the server.")))
	p := startProc(t, model.srv.URL, procOpts{config: bypassConfig("")})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	if stop, err := p.e.Prompt(ctx, sid, "run the dev server"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %v %v", stop, err)
	}
	started, _, _ := sentResult(t, model, "toolu_bg")
	if !strings.Contains(started, "bash_1") || strings.Contains(started, "tick") {
		t.Errorf("Bash in the background answered %q, want the task id at once", started)
	}
	first, isErr, _ := sentResult(t, model, "toolu_out1")
	got1 := ticks(first)
	if isErr || len(got1) < 2 || got1[0] != 1 || !strings.Contains(first, "<status>running</status>") {
		t.Errorf("first read: ticks %v (error %v):\n%s", got1, isErr, first)
	}
	second, isErr, _ := sentResult(t, model, "toolu_out2")
	got2 := ticks(second)
	if next := int(firstMax.Load()) + 1; isErr || len(got2) == 0 || got2[0] != next || !strings.Contains(second, "<status>running</status>") {
		t.Errorf("second read: ticks %v, want new ones from %d (error %v):\n%s", got2, next, isErr, second)
	}
	stopped, isErr, _ := sentResult(t, model, "toolu_stop")
	if isErr || !strings.Contains(stopped, "bash_1") {
		t.Errorf("TaskStop: %q (error %v)", stopped, isErr)
	}
	pid := waitPids(t, pidFile, 1)
	if left := waitGone(pid, 10*time.Second); len(left) > 0 {
		t.Errorf("the background shell %v outlived TaskStop", left)
	}
}

// A background command, with a child of its own, does not outlive its
// session: it is killed when the editor closes the session, when cordis
// exits because the editor went away, and when cordis is killed.
func TestBinaryBackgroundShellEnds(t *testing.T) {
	for _, ending := range []string{"session/close", "editor gone", "SIGKILL"} {
		t.Run(strings.ReplaceAll(ending, "/", "-"), func(t *testing.T) {
			ctx := testCtx(t)
			pidFile := filepath.Join(t.TempDir(), "pids")
			script := "echo $$ > " + pidFile + ".tmp; sleep 1000 & echo $! >> " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; wait"
			model := newFakeModel(t,
				toolReply("toolu_bg", "Bash", inputJSON(map[string]any{"command": script, "run_in_background": true})),
				textReply("It runs."))
			p := startProc(t, model.srv.URL, procOpts{config: bypassConfig("")})
			p.e.Initialize(ctx, acp.ClientCapabilities{})
			sid := p.e.NewSession(ctx, p.work).SessionID
			if stop, err := p.e.Prompt(ctx, sid, "start it"); err != nil || stop != acp.StopEndTurn {
				t.Fatalf("prompt: %v %v", stop, err)
			}
			pids := waitPids(t, pidFile, 2)
			// The turn is over and the task still runs: it is the session's.
			for _, pid := range pids {
				if !alive(pid) {
					t.Fatalf("process %d of the background task ended with the turn", pid)
				}
			}
			switch ending {
			case "session/close":
				if err := p.e.Call(ctx, acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: sid}, nil); err != nil {
					t.Fatal(err)
				}
			case "editor gone":
				p.e.CloseWrite()
			case "SIGKILL":
				p.e.Kill()
			}
			if left := waitGone(pids, 10*time.Second); len(left) > 0 {
				t.Fatalf("processes %v outlived %s", left, ending)
			}
		})
	}
}

// askQuestions is an AskUserQuestion call with two questions, the second
// multi-select.
var askQuestions = inputJSON(map[string]any{"questions": []map[string]any{
	{"question": "Which database should the service use?", "header": "Database", "multiSelect": false, "options": []map[string]any{
		{"label": "Postgres", "description": "Relational, already in production"},
		{"label": "SQLite", "description": "A file, no server"},
	}},
	{"question": "Which tests should I add?", "header": "Tests", "multiSelect": true, "options": []map[string]any{
		{"label": "Unit", "description": "Per function"},
		{"label": "Integration", "description": "Against a real database"},
		{"label": "Load", "description": "Throughput"},
	}},
}})

// AskUserQuestion through the binary to an editor that offers form
// elicitation: one elicitation/create form for both questions, tied to
// the tool call, whose answers (only labels it offered) reach the model.
func TestBinaryAskUserElicitation(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t, toolReply("toolu_ask", "AskUserQuestion", askQuestions), textReply("Postgres it is."))
	e, _ := startAgent(t, model, t.TempDir(), t.TempDir())
	var mu sync.Mutex
	var forms []*acp.CreateElicitationRequest
	e.OnElicitation = func(_ context.Context, r *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		forms = append(forms, r)
		return &acp.CreateElicitationResponse{Action: acp.ElicitationAccept,
			Content: json.RawMessage(`{"q1":"Postgres","q2":["Unit","Integration","Fuzz"],"q2_other":"and a smoke test"}`)}, nil
	}
	asked := false
	e.OnPermission = func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = true
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "cancelled"}}, nil
	}
	e.Initialize(ctx, acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.Supported{}}})
	sid := e.NewSession(ctx, t.TempDir()).SessionID
	if stop, err := e.Prompt(ctx, sid, "set up storage"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %v %v", stop, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(forms) != 1 || asked {
		t.Fatalf("%d forms, permission asked %v; want one form and no permission request", len(forms), asked)
	}
	f := forms[0]
	schema := string(f.RequestedSchema)
	if f.Mode != acp.ElicitModeForm || f.SessionID != sid || f.ToolCallID != "toolu_ask" || !strings.Contains(f.Message, "Which database should the service use?") ||
		!strings.Contains(schema, `"const":"SQLite"`) || !strings.Contains(schema, `"type":"array"`) {
		t.Errorf("elicitation = %+v, schema %s", f, schema)
	}
	text, isErr, _ := sentResult(t, model, "toolu_ask")
	for _, want := range []string{"Postgres", "Unit", "Integration", "and a smoke test"} {
		if isErr || !strings.Contains(text, want) {
			t.Errorf("answers sent to the model lack %q (error %v):\n%s", want, isErr, text)
		}
	}
	if strings.Contains(text, "Fuzz") {
		t.Errorf("a label the question did not offer reached the model:\n%s", text)
	}
}

// AskUserQuestion to an editor without elicitation: each question is a
// permission request whose options are its choices (and a decline), and
// the chosen label reaches the model.
func TestBinaryAskUserPermissionFallback(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t, toolReply("toolu_ask", "AskUserQuestion", askQuestions), textReply("ok"))
	e, _ := startAgent(t, model, t.TempDir(), t.TempDir())
	var mu sync.Mutex
	var requests []*acp.RequestPermissionRequest
	e.OnPermission = func(_ context.Context, r *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		requests = append(requests, r)
		mu.Unlock()
		// The second choice of each question.
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: r.Options[1].OptionID}}, nil
	}
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, t.TempDir()).SessionID
	if stop, err := e.Prompt(ctx, sid, "set up storage"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %v %v", stop, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(requests) != 2 {
		t.Fatalf("%d permission requests, want one per question", len(requests))
	}
	var names []string
	for _, o := range requests[0].Options {
		names = append(names, o.Name)
	}
	if requests[0].ToolCall.ToolCallID != "toolu_ask" || requests[0].ToolCall.Title != "Which database should the service use?" || strings.Join(names, "|") != "Postgres|SQLite|Decline to answer" {
		t.Errorf("first question asked as %q with options %q", requests[0].ToolCall.Title, names)
	}
	text, isErr, _ := sentResult(t, model, "toolu_ask")
	if isErr || !strings.Contains(text, "SQLite") || !strings.Contains(text, "Integration") || strings.Contains(text, "Postgres") {
		t.Errorf("answers sent to the model (error %v):\n%s", isErr, text)
	}
}

// session/cancel while AskUserQuestion waits for the user ends the turn
// as cancelled at once, whichever way the question was put; the
// question's card does not stay pending.
func TestBinaryAskUserCancelled(t *testing.T) {
	for _, elicit := range []bool{true, false} {
		t.Run(map[bool]string{true: "elicitation", false: "permission"}[elicit], func(t *testing.T) {
			ctx := testCtx(t)
			model := newFakeModel(t, toolReply("toolu_ask", "AskUserQuestion", askQuestions), textReply("unreachable"))
			e, _ := startAgent(t, model, t.TempDir(), t.TempDir())
			waiting := make(chan struct{}, 2)
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			e.OnElicitation = func(context.Context, *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error) {
				waiting <- struct{}{}
				<-release
				return &acp.CreateElicitationResponse{Action: acp.ElicitationCancel}, nil
			}
			e.OnPermission = func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
				waiting <- struct{}{}
				<-release
				return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "cancelled"}}, nil
			}
			caps := acp.ClientCapabilities{}
			if elicit {
				caps.Elicitation = &acp.ElicitationCapabilities{Form: &acp.Supported{}}
			}
			e.Initialize(ctx, caps)
			sid := e.NewSession(ctx, t.TempDir()).SessionID
			type result struct {
				stop acp.StopReason
				err  error
			}
			done := make(chan result, 1)
			go func() {
				stop, err := e.Prompt(ctx, sid, "set up storage")
				done <- result{stop, err}
			}()
			select {
			case <-waiting:
			case <-ctx.Done():
				t.Fatal("the question never reached the editor")
			}
			if err := e.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
				t.Fatal(err)
			}
			var r result
			select {
			case r = <-done:
			case <-ctx.Done():
				t.Fatal("the prompt was not answered after session/cancel")
			}
			if r.err != nil || r.stop != acp.StopCancelled {
				t.Fatalf("prompt answered %v %v, want cancelled", r.stop, r.err)
			}
			if n := len(model.Requests()); n != 1 {
				t.Errorf("%d model requests: the turn went on after the cancel", n)
			}
			status := acp.ToolCallStatus("")
			for _, u := range e.Updates(sid) {
				if up, ok := u.(*acp.ToolCallUpdate); ok && up.ToolCallID == "toolu_ask" && up.Status != "" {
					status = up.Status
				}
			}
			if status == acp.ToolStatusPending || status == acp.ToolStatusInProgress {
				t.Errorf("the question's card was left %s", status)
			}
		})
	}
}
