package loop_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/sessionlog"
)

// compactionCaps is an editor that takes compaction_update.
var compactionCaps = func() acp.ClientCapabilities {
	var c acp.ClientCapabilities
	json.Unmarshal([]byte(`{"fs":{},"session":{"compaction":{}}}`), &c)
	return c
}()

// smallWindow is a 20,000-token window with 1,000 tokens of output: a
// request is compacted first beyond 20,000 - 1,000 - 1,000 (5%) = 18,000
// estimated tokens.
func smallWindow(c *loop.Config) {
	c.ContextWindow = 20_000
	c.MaxTokens = 1000
}

// bigFiles writes two files of about 10,000 tokens each (bytes/4) in dir.
func bigFiles(t *testing.T, dir string) (one, two string) {
	one, two = filepath.Join(dir, "one.txt"), filepath.Join(dir, "two.txt")
	line := strings.Repeat("x", 79) + "\n"
	os.WriteFile(one, []byte("FIRST-FILE\n"+strings.Repeat(line, 500)), 0o644)
	os.WriteFile(two, []byte("SECOND-FILE\n"+strings.Repeat(line, 500)), 0o644)
	return one, two
}

// recordSeams records the PreCompact triggers it sees.
func recordSeams() (hooks.Seams, func() []string) {
	var mu sync.Mutex
	var seen []string
	return hookFunc(func(_ context.Context, in *hooks.Input) hooks.Decision {
			if in.Event == hooks.PreCompact {
				mu.Lock()
				seen = append(seen, in.Trigger)
				mu.Unlock()
			}
			return hooks.Decision{}
		}), func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), seen...)
		}
}

// checkPairs fails the test when a request's messages hold a tool_result
// without its tool_use before it, or a tool_use without its result in the
// next message (the API refuses both).
func checkPairs(t *testing.T, req map[string]any) {
	t.Helper()
	msgs, _ := req["messages"].([]any)
	for i, m := range msgs {
		content, _ := m.(map[string]any)["content"].([]any)
		for _, b := range content {
			blk := b.(map[string]any)
			switch blk["type"] {
			case "tool_result":
				if i == 0 || !holdsBlock(msgs[i-1], "tool_use", "id", blk["tool_use_id"]) {
					t.Errorf("message %d: tool_result %v without its tool_use in the message before", i, blk["tool_use_id"])
				}
			case "tool_use":
				if i+1 < len(msgs) && !holdsBlock(msgs[i+1], "tool_result", "tool_use_id", blk["id"]) {
					t.Errorf("message %d: tool_use %v without its tool_result in the next message", i, blk["id"])
				}
			}
		}
	}
}

func holdsBlock(m any, typ, field string, value any) bool {
	content, _ := m.(map[string]any)["content"].([]any)
	for _, b := range content {
		if blk := b.(map[string]any); blk["type"] == typ && blk[field] == value {
			return true
		}
	}
	return false
}

// A turn whose next request would not fit the window compacts in the
// middle: what came before the model's last tool call is summarized, that
// call and its result stay as they are, and the same turn goes on. The
// editor without the compaction capability is told in text; a reload
// rebuilds the compacted history.
func TestMidTurnCompactionKeepsTheTurnGoing(t *testing.T) {
	seams, triggers := recordSeams()
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Mode: loop.ModeBypass, Config: smallWindow})
	one, two := bigFiles(t, h.Cwd)
	h.Model.Append(
		looptest.Reply{Stop: "tool_use", InputTokens: 3000, Blocks: []looptest.Block{looptest.ToolUse("toolu_1", "Read", map[string]any{"file_path": one})}}.Handler(),
		looptest.Reply{Stop: "tool_use", InputTokens: 13000, Blocks: []looptest.Block{looptest.ToolUse("toolu_2", "Read", map[string]any{"file_path": two})}}.Handler(),
		looptest.ReplyText("SUMMARY: the user wants both files read; one.txt was read."),
		looptest.ReplyText("Both files hold x lines."),
	)
	sid := h.NewSession()
	if stop := h.Prompt(sid, "Read one.txt and two.txt, then tell me what they hold."); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
	reqs := h.Model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (two steps, the summary, the step after it)", len(reqs))
	}
	summaryReq, _ := json.Marshal(reqs[2])
	if reqs[2]["tools"] != nil || !strings.Contains(string(summaryReq), "Read one.txt and two.txt") || !strings.Contains(string(summaryReq), "in the middle of a task") {
		t.Fatalf("the summary request: %.600s", summaryReq)
	}
	if strings.Contains(string(summaryReq), "SECOND-FILE") {
		t.Fatal("the kept tool result went into the summary request too")
	}
	after, _ := json.Marshal(reqs[3]["messages"])
	if !strings.Contains(string(after), "SUMMARY: the user wants both files read") || strings.Contains(string(after), "FIRST-FILE") ||
		!strings.Contains(string(after), "SECOND-FILE") || !strings.Contains(string(after), `"toolu_2"`) || strings.Contains(string(after), `"toolu_1"`) {
		t.Fatalf("the request after compaction: %.800s", after)
	}
	for _, r := range reqs {
		checkPairs(t, r)
	}
	if got := strings.Join(triggers(), ","); got != "auto" {
		t.Errorf("PreCompact triggers = %q, want auto", got)
	}
	text := looptest.AgentText(h.Editor.Updates(sid))
	if !strings.Contains(text, "so the conversation was compacted: 3 messages replaced by a summary") || !strings.Contains(text, "the last 2 messages are kept as they are and the turn goes on") ||
		!strings.HasSuffix(text, "Both files hold x lines.") {
		t.Fatalf("agent text = %q", text)
	}
	events := logEvents(t, h.StateDir, sid, "")
	c := logData(events, sessionlog.TypeCompaction)
	if len(c) != 1 || c[0]["kept"] != 2.0 || c[0]["trigger"] != "auto" || c[0]["id"] != "compaction-1" {
		t.Fatalf("compaction events = %v", c)
	}

	// Reloaded, the history is the summary, the kept call and result, and
	// the answer; the editor sees the compaction again.
	closeSession(t, h, sid)
	h2 := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { smallWindow(c); c.StateDir = h.StateDir }}, looptest.ReplyText("ok"))
	if err := h2.Editor.Call(h2.Ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: h.Cwd, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	if got := looptest.AgentText(h2.Editor.Updates(sid)); !strings.Contains(got, "so the conversation was compacted") {
		t.Errorf("the replay does not show the compaction: %q", got)
	}
	h2.Prompt(sid, "thanks")
	var msgs []llm.Message
	b, _ := json.Marshal(h2.Model.Requests()[0]["messages"])
	json.Unmarshal(b, &msgs)
	if len(msgs) != 5 || !strings.Contains(msgs[0].Content[0].Text, "SUMMARY") || msgs[1].Content[0].ID != "toolu_2" || msgs[2].Content[0].ToolUseID != "toolu_2" {
		t.Fatalf("reloaded history: %.800s", b)
	}
}

// With the editor's compaction capability the compaction is a
// compaction_update, in progress then completed with the summary, and no
// text; a reload replays the completed one.
func TestMidTurnCompactionSendsCompactionUpdates(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass, Caps: compactionCaps, Config: smallWindow})
	one, two := bigFiles(t, h.Cwd)
	h.Model.Append(
		looptest.Reply{Stop: "tool_use", InputTokens: 3000, Blocks: []looptest.Block{looptest.ToolUse("toolu_1", "Read", map[string]any{"file_path": one})}}.Handler(),
		looptest.Reply{Stop: "tool_use", InputTokens: 13000, Blocks: []looptest.Block{looptest.ToolUse("toolu_2", "Read", map[string]any{"file_path": two})}}.Handler(),
		looptest.ReplyText("SUMMARY of the task"),
		looptest.ReplyText("Done."),
	)
	sid := h.NewSession()
	h.Prompt(sid, "Read both files.")
	var got []*acp.CompactionUpdate
	for _, u := range h.Editor.Updates(sid) {
		if c, ok := u.(*acp.CompactionUpdate); ok {
			got = append(got, c)
		}
	}
	if len(got) != 2 || got[0].Status != acp.CompactionInProgress || got[1].Status != acp.CompactionCompleted || got[0].CompactionID != got[1].CompactionID ||
		len(got[1].Summary) != 1 || got[1].Summary[0].Text != "SUMMARY of the task" {
		t.Fatalf("compaction updates = %+v", got)
	}
	if text := looptest.AgentText(h.Editor.Updates(sid)); strings.Contains(text, "compacted") {
		t.Errorf("the compaction was also shown as text: %q", text)
	}

	closeSession(t, h, sid)
	h2 := looptest.NewHarness(t, looptest.Options{Caps: compactionCaps, Config: func(c *loop.Config) { c.StateDir = h.StateDir }})
	if err := h2.Editor.Call(h2.Ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: h.Cwd, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	var replayed []*acp.CompactionUpdate
	for _, u := range h2.Editor.Updates(sid) {
		if c, ok := u.(*acp.CompactionUpdate); ok {
			replayed = append(replayed, c)
		}
	}
	if len(replayed) != 1 || replayed[0].Status != acp.CompactionCompleted || replayed[0].CompactionID != got[1].CompactionID {
		t.Fatalf("replayed compaction updates = %+v", replayed)
	}
}

// /compact goes out as compaction_update too where the editor takes them.
func TestSlashCompactSendsCompactionUpdate(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Caps: compactionCaps}, looptest.ReplyText("first answer"), looptest.ReplyText("SUMMARY"))
	sid := h.NewSession()
	h.Prompt(sid, "first question")
	h.Prompt(sid, "/compact")
	var statuses []string
	for _, u := range h.Editor.Updates(sid) {
		if c, ok := u.(*acp.CompactionUpdate); ok {
			statuses = append(statuses, string(c.Status)+":"+c.CompactionID)
		}
	}
	if strings.Join(statuses, ",") != "in_progress:compaction-1,completed:compaction-1" {
		t.Fatalf("compaction updates = %v", statuses)
	}
}

// A failed compaction is a failed compaction_update with the reason.
func TestFailedCompactionIsAFailedUpdate(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Caps: compactionCaps}, looptest.ReplyText("first answer"), looptest.ReplyText(" "))
	sid := h.NewSession()
	h.Prompt(sid, "first question")
	h.Prompt(sid, "/compact")
	var last *acp.CompactionUpdate
	for _, u := range h.Editor.Updates(sid) {
		if c, ok := u.(*acp.CompactionUpdate); ok {
			last = c
		}
	}
	if last == nil || last.Status != acp.CompactionFailed || last.Error == nil || !strings.Contains(*last.Error, "no summary") {
		t.Fatalf("last compaction update = %+v", last)
	}
}

// promptTooLong is Anthropic's answer to a request longer than the window.
func promptTooLong(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write([]byte(`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 212345 tokens > 200000 maximum"}}`))
}

// A request the API refuses as too long is compacted and sent again, once,
// visibly; the turn goes on.
func TestContextLengthErrorCompactsAndRetries(t *testing.T) {
	seams, triggers := recordSeams()
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Mode: loop.ModeBypass})
	one, _ := bigFiles(t, h.Cwd)
	h.Model.Append(
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Read", map[string]any{"file_path": one})),
		promptTooLong,
		looptest.ReplyText("SUMMARY: reading one.txt"),
		looptest.ReplyText("It holds x lines."),
	)
	sid := h.NewSession()
	if stop := h.Prompt(sid, "What is in one.txt?"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
	reqs := h.Model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	retry, _ := json.Marshal(reqs[3]["messages"])
	if !strings.Contains(string(retry), "SUMMARY: reading one.txt") || !strings.Contains(string(retry), "FIRST-FILE") {
		t.Fatalf("the retried request: %.600s", retry)
	}
	checkPairs(t, reqs[3])
	text := looptest.AgentText(h.Editor.Updates(sid))
	if !strings.Contains(text, "the model API refused the request as too long for the model's context window, so the conversation was compacted") || !strings.HasSuffix(text, "It holds x lines.") {
		t.Fatalf("agent text = %q", text)
	}
	if got := strings.Join(triggers(), ","); got != "auto" {
		t.Errorf("PreCompact triggers = %q", got)
	}
}

// When the compacted request is refused again, the prompt ends with a
// JSON-RPC error that says what to do; no third request is sent.
func TestContextLengthErrorTwiceEndsThePrompt(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass})
	one, _ := bigFiles(t, h.Cwd)
	h.Model.Append(
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Read", map[string]any{"file_path": one})),
		promptTooLong,
		looptest.ReplyText("SUMMARY"),
		promptTooLong,
	)
	sid := h.NewSession()
	_, err := h.Editor.Prompt(h.Ctx, sid, "What is in one.txt?")
	var rpc *acp.Error
	b, _ := json.Marshal(err)
	json.Unmarshal(b, &rpc)
	if err == nil || !strings.Contains(err.Error(), "does not fit the model's context window") || !strings.Contains(err.Error(), "/clear") {
		t.Fatalf("prompt error = %v", err)
	}
	if n := len(h.Model.Requests()); n != 4 {
		t.Fatalf("%d requests, want 4 (no second compaction)", n)
	}
}

// A response that stopped because the window filled up
// (model_context_window_exceeded) is followed by a compaction and the turn
// goes on from where it stopped.
func TestContextWindowExceededStopCompactsAndContinues(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{},
		looptest.ReplyText("first answer"),
		looptest.StreamBlocks("model_context_window_exceeded", looptest.Text("The long answer begins")),
		looptest.ReplyText("SUMMARY"),
		looptest.ReplyText(" and ends."),
	)
	sid := h.NewSession()
	h.Prompt(sid, "first")
	if stop := h.Prompt(sid, "write a long answer"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
	reqs := h.Model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	var msgs []llm.Message
	b, _ := json.Marshal(reqs[3]["messages"])
	json.Unmarshal(b, &msgs)
	// The summary, the cut answer, and a note to go on: the request ends
	// with the user, not with the cut answer.
	if len(msgs) != 3 || msgs[1].Role != llm.RoleAssistant || msgs[1].Content[0].Text != "The long answer begins" || msgs[2].Role != llm.RoleUser {
		t.Fatalf("the request after compaction: %s", b)
	}
}
