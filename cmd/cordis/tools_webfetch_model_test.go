package main

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
)

// smallModelReply is the small model's answer to WebFetch's side call.
func smallModelReply(text string) string {
	q, _ := json.Marshal(text)
	return sse(
		ev("message_start", `{"type":"message_start","message":{"id":"msg_h","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[],"usage":{"input_tokens":2000,"output_tokens":1}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(q)+`}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}`),
		ev("message_stop", `{"type":"message_stop"}`),
	)
}

// With agent.webFetch.model in the user's cordis.yml, the binary applies
// WebFetch's prompt to the page with that model: one request without
// tools holding the page cut to maxChars and the prompt; the main model
// gets the answer; the editor's cost counts the small model at its
// prices; and a reload in a new process shows the same result and cost.
func TestBinaryWebFetchPromptAppliedBySmallModel(t *testing.T) {
	ctx := testCtx(t)
	site := newLocalSite(t)
	model := newFakeModel(t,
		toolReply("toolu_big", "WebFetch", inputJSON(map[string]any{"url": site.URL + "/changelog", "prompt": "latest release?"})),
		smallModelReply("The page lists releases 0 to 190; the latest it shows is release 190."),
		textReply("Release 190."))
	config := strings.Replace(webFetchUserConfig, "maxChars: 3000}", "maxChars: 3000, model: claude-haiku-4-5}", 1)
	p := startProc(t, model.srv.URL, procOpts{config: config})
	p.e.OnPermission = func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
	}
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	if stop, err := p.e.Prompt(ctx, sid, "what is the latest release?"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %v %v", stop, err)
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	var side struct {
		Model    string            `json:"model"`
		Tools    []json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(reqs[1]), &side); err != nil {
		t.Fatal(err)
	}
	if side.Model != "claude-haiku-4-5" || len(side.Tools) != 0 || len(side.Messages) != 1 || len(side.Messages[0].Content) != 1 {
		t.Fatalf("side call: model %q, %d tools, messages %+v; want the small model, no tools, one message", side.Model, len(side.Tools), side.Messages)
	}
	asked := side.Messages[0].Content[0].Text
	page, _, _ := strings.Cut(asked, "</page>")
	if !strings.Contains(page, "release 0: fixes") || strings.Contains(page, "release 4999") || !strings.Contains(page, "[content truncated:") || len([]rune(page)) > 3400 ||
		!strings.HasSuffix(asked, "Question about the page: latest release?") || strings.Contains(asked, "what is the latest release?") {
		t.Errorf("the side call's message (%d characters) is not the capped page and the prompt:\n%.400s\n...\n%s", len(asked), asked, asked[max(0, len(asked)-300):])
	}
	const wantAnswer = "The page lists releases 0 to 190; the latest it shows is release 190."
	text, isErr, _ := sentResult(t, model, "toolu_big")
	if isErr || !strings.HasPrefix(text, "Answer to the prompt from "+site.URL+"/changelog") || !strings.Contains(text, wantAnswer) || strings.Contains(text, "release 0: fixes") {
		t.Errorf("the main model got %q, want the small model's answer", text)
	}

	// Sonnet's two steps of 10 in and 5 out at $3/$15 per MTok; Haiku's
	// 2000 in and 30 out at $1/$5.
	wantCost := 2*(10*3+5*15)/1e6 + (2000*1+30*5)/1e6
	cost := func(updates []acp.SessionUpdate) float64 {
		c := -1.0
		for _, u := range updates {
			if uu, ok := u.(*acp.UsageUpdate); ok && uu.Cost != nil {
				c = uu.Cost.Amount
			}
		}
		return c
	}
	if got := cost(p.e.Updates(sid)); math.Abs(got-wantCost) > 1e-6 {
		t.Errorf("cost shown = %v, want %v (the small model at its prices)", got, wantCost)
	}

	p.e.Kill()
	waitExited(t, p.cmd.Process.Pid, 10*time.Second)
	e2, _ := startAgent(t, newFakeModel(t), p.state, p.work, "--config", configFile(t, config))
	e2.Initialize(ctx, acp.ClientCapabilities{})
	if err := e2.Call(ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: p.work, MCPServers: []acp.MCPServer{}}, &json.RawMessage{}); err != nil {
		t.Fatal(err)
	}
	// The restored usage_update follows the load's response; a later
	// request is answered after it.
	if err := e2.Call(ctx, acp.MethodSessionList, acp.ListSessionsRequest{}, &json.RawMessage{}); err != nil {
		t.Fatal(err)
	}
	updates := e2.Updates(sid)
	shown := false
	for _, u := range updates {
		if tc, ok := u.(*acp.ToolCallUpdate); ok && tc.ToolCallID == "toolu_big" {
			for _, c := range tc.Content {
				shown = shown || (c.Content != nil && strings.Contains(c.Content.Text, wantAnswer))
			}
		}
	}
	if !shown {
		t.Errorf("the reload does not show the small model's answer as the call's result")
	}
	if got := cost(updates); math.Abs(got-wantCost) > 1e-6 {
		t.Errorf("cost after the reload = %v, want %v", got, wantCost)
	}
}
