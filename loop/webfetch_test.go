package loop_test

import (
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/cordis-agent/cordis/sessionlog"
)

// docsSite serves one HTML page whose tail lies past a 300-character
// cap.
func docsSite(t *testing.T) *httptest.Server {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<h1>Install</h1><p>Run <code>go get example.com/tool</code>.</p><p>" + strings.Repeat("More words. ", 60) + "</p><p>THE-TAIL</p>"))
	}))
	t.Cleanup(site.Close)
	return site
}

// With agent.webFetch's small model configured, WebFetch's prompt is
// applied to the page by a side call through the session's provider:
// that request holds the capped page and the prompt, no tools, and asks
// the small model; the main model gets its answer, not the page; the side
// call is billed at the small model's prices and logged, so that a
// reload restores the same cost and leaves the context meter as the
// conversation left it.
func TestWebFetchPromptAppliedBySmallModel(t *testing.T) {
	site := docsSite(t)
	web := &tools.WebOptions{AllowPrivate: true, MaxChars: 300, SummaryModel: "claude-haiku-4-5"}
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass, Anthropic: anthropic.Config{Model: "claude-sonnet-4-5"}, Config: func(c *loop.Config) { c.Web = web }},
		looptest.Reply{Stop: "tool_use", Model: "claude-sonnet-4-5", Blocks: []looptest.Block{looptest.ToolUse("toolu_f", "WebFetch", map[string]any{"url": site.URL + "/docs", "prompt": "How do I install it?"})}}.Handler(),
		looptest.Reply{Stop: "end_turn", Model: "claude-haiku-4-5", InputTokens: 1000, Blocks: []looptest.Block{looptest.Text("Run `go get example.com/tool`.")}}.Handler(),
		// The turn's next step fails, so the side call is the session's
		// last logged response when it is reloaded.
		func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"scripted failure"}}`, http.StatusBadRequest)
		})
	sid := h.NewSession()
	if _, err := h.Editor.Prompt(h.Ctx, sid, "how do I install the tool?"); err == nil || !strings.Contains(err.Error(), "scripted failure") {
		t.Fatalf("prompt error = %v, want the scripted failure", err)
	}
	reqs := h.Model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}

	side := reqs[1]
	if side["model"] != "claude-haiku-4-5" {
		t.Errorf("side call model = %v, want claude-haiku-4-5", side["model"])
	}
	if _, ok := side["tools"]; ok {
		t.Errorf("the side call offers tools: %v", side["tools"])
	}
	if _, ok := side["thinking"]; ok {
		t.Errorf("the side call asks for thinking: %v", side["thinking"])
	}
	msgs, _ := side["messages"].([]any)
	if len(msgs) != 1 {
		t.Fatalf("side call messages = %v, want the one question", msgs)
	}
	asked := messageText(msgs[0])
	for _, want := range []string{"The content of the page at " + site.URL + "/docs (only its beginning", "# Install", "Run `go get example.com/tool`.", "[content truncated", "Question about the page: How do I install it?"} {
		if !strings.Contains(asked, want) {
			t.Errorf("the side call's message lacks %q:\n%s", want, asked)
		}
	}
	if strings.Contains(asked, "THE-TAIL") || strings.Contains(asked, "how do I install the tool?") {
		t.Errorf("the side call holds more than the capped page and the prompt:\n%s", asked)
	}
	if system := systemText(side); !strings.Contains(system, "Use only the page below") || !strings.Contains(system, "Quote sparingly") {
		t.Errorf("side call system = %q", system)
	}

	text, isErr := looptest.ToolResult(t, reqs[2], "toolu_f")
	want := "Answer to the prompt from " + site.URL + "/docs (the page was read by a small model; call WebFetch again with a more specific prompt for details):\n\nRun `go get example.com/tool`.\n\n[the page was longer than cordis reads: the answer covers only its beginning]"
	if isErr || text != want {
		t.Errorf("the main model got %q, want %q", text, want)
	}

	// One main step of 100 in and 20 out at Sonnet's $3/$15 per MTok, the
	// side call's 1000 in and 20 out at Haiku's $1/$5.
	wantCost := (100*3+20*15)/1e6 + (1000*1+20*5)/1e6
	last := lastUsage(h.Editor.Updates(sid))
	if last == nil || last.Cost == nil || math.Abs(last.Cost.Amount-wantCost) > 1e-9 || last.Used != 120 {
		t.Errorf("last usage_update = %+v, want cost %v and the main step's context 120", last, wantCost)
	}
	var purposes []any
	for _, ev := range logData(logEvents(t, h.StateDir, sid, ""), sessionlog.TypeModelResponse) {
		purposes = append(purposes, ev["purpose"])
	}
	if len(purposes) != 2 || purposes[1] != "web_fetch" {
		t.Errorf("logged responses' purposes = %v, want the side call's web_fetch last", purposes)
	}

	closeSession(t, h, sid)
	h2 := looptest.NewHarness(t, looptest.Options{Anthropic: anthropic.Config{Model: "claude-sonnet-4-5"}, Config: func(c *loop.Config) { c.Web = web; c.StateDir = h.StateDir }})
	if err := h2.Editor.Call(h2.Ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: h.Cwd, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	// The restored usage_update follows the load's response; a later
	// request is answered after it.
	if err := h2.Editor.Call(h2.Ctx, acp.MethodSessionList, acp.ListSessionsRequest{}, &acp.ListSessionsResponse{}); err != nil {
		t.Fatal(err)
	}
	updates := h2.Editor.Updates(sid)
	if got := toolCallText(updates, "toolu_f"); !strings.Contains(got, "Run `go get example.com/tool`.") {
		t.Errorf("the reload shows the call's result as %q", got)
	}
	if last := lastUsage(updates); last == nil || last.Cost == nil || math.Abs(last.Cost.Amount-wantCost) > 1e-9 || last.Used != 120 {
		t.Errorf("after the reload, usage_update = %+v, want cost %v and context 120", last, wantCost)
	}
}

// Without a small model the page itself is the result (capped, with the
// marker), and no side call is made.
func TestWebFetchWithoutSmallModelReturnsThePage(t *testing.T) {
	site := docsSite(t)
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass, Config: func(c *loop.Config) { c.Web = &tools.WebOptions{AllowPrivate: true, MaxChars: 300} }},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_f", "WebFetch", map[string]any{"url": site.URL + "/docs", "prompt": "How do I install it?"})),
		looptest.ReplyText("ok"))
	h.Prompt(h.NewSession(), "install?")
	reqs := h.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (no side call)", len(reqs))
	}
	text, _ := looptest.ToolResult(t, reqs[1], "toolu_f")
	if !strings.Contains(text, "# Install") || !strings.Contains(text, "[content truncated") || strings.Contains(text, "THE-TAIL") {
		t.Errorf("result = %q", text)
	}
}

func lastUsage(updates []acp.SessionUpdate) *acp.UsageUpdate {
	var last *acp.UsageUpdate
	for _, u := range updates {
		if u, ok := u.(*acp.UsageUpdate); ok {
			last = u
		}
	}
	return last
}

// toolCallText is the text content the editor was shown for a call.
func toolCallText(updates []acp.SessionUpdate, id string) string {
	var b strings.Builder
	add := func(content []acp.ToolCallContent) {
		for _, c := range content {
			if c.Content != nil {
				b.WriteString(c.Content.Text)
			}
		}
	}
	for _, u := range updates {
		switch u := u.(type) {
		case *acp.ToolCall:
			if u.ToolCallID == id {
				add(u.Content)
			}
		case *acp.ToolCallUpdate:
			if u.ToolCallID == id {
				add(u.Content)
			}
		}
	}
	return b.String()
}

func messageText(m any) string {
	var b strings.Builder
	content, _ := m.(map[string]any)["content"].([]any)
	for _, c := range content {
		if t, ok := c.(map[string]any)["text"].(string); ok {
			b.WriteString(t)
		}
	}
	return b.String()
}

func systemText(req map[string]any) string {
	var b strings.Builder
	blocks, _ := req["system"].([]any)
	for _, s := range blocks {
		if t, ok := s.(map[string]any)["text"].(string); ok {
			b.WriteString(t)
		}
	}
	return b.String()
}
