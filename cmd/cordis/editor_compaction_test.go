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
)

// withInput makes a scripted reply report input tokens of the request it
// answers (the loop estimates the next request from them).
func withInput(reply string, tokens string) string {
	return strings.Replace(reply, `"input_tokens":10`, `"input_tokens":`+tokens, 1)
}

// A long turn through the built binary: the user's model table gives the
// model a 20,000-token window, the turn's third request would not fit, so
// cordis compacts in the middle of the turn and goes on; an editor that
// advertises session.compaction (Zed's capabilities otherwise) receives
// compaction_update frames (in progress, then completed with the
// summary), never text about it, and a reload in a new process replays
// the completed compaction.
func TestMidTurnCompactionThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	model := newZedModel(t)
	work, state := t.TempDir(), t.TempDir()
	line := strings.Repeat("x", 79) + "\n"
	one, two := filepath.Join(work, "one.txt"), filepath.Join(work, "two.txt")
	os.WriteFile(one, []byte("FIRST-FILE\n"+strings.Repeat(line, 500)), 0o644)
	os.WriteFile(two, []byte("SECOND-FILE\n"+strings.Repeat(line, 500)), 0o644)
	config := filepath.Join(t.TempDir(), "cordis.yml")
	os.WriteFile(config, []byte(`- id: agent
  name: agent
  config:
    defaultMode: bypassPermissions
    modelTable:
      claude-sonnet-4-5: {contextWindow: 20000}
- id: llm
  name: llm/anthropic
  config: {model: claude-sonnet-4-5, maxTokens: 1000, baseURL: "${ANTHROPIC_BASE_URL}"}
`), 0o644)
	model.steps = replies(
		withInput(toolReply("toolu_1", "Read", `{"file_path":`+quoteJSON(one)+`}`), "3000"),
		withInput(toolReply("toolu_2", "Read", `{"file_path":`+quoteJSON(two)+`}`), "13000"),
		textReply("SUMMARY: the user wants both files read; one.txt holds x lines."),
		textReply("Both files hold x lines."),
	)
	caps := compactionCapabilities(t)
	start := func() *acptest.Editor {
		cmd := exec.Command(binary, "acp", "--config", config, "--state-dir", state)
		cmd.Env, cmd.Dir = isolatedEnv(t, model.srv.URL), work
		e := acptest.StartProcess(t, cmd)
		acptest.ServeLikeZed(e, func(_ context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
			resp, _ := acptest.SelectKind(req, acp.PermAllowOnce)
			return resp, nil
		})
		e.Initialize(ctx, caps)
		return e
	}
	e := start()
	sid := e.NewSession(ctx, work).SessionID
	if stop, err := e.Prompt(ctx, sid, "Read one.txt and two.txt, then tell me what they hold."); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	reqs := model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4 (two steps, the summary, the step after it)", len(reqs))
	}
	if last := reqs[3]; !strings.Contains(last, "SUMMARY: the user wants both files read") || strings.Contains(last, "FIRST-FILE") ||
		!strings.Contains(last, "SECOND-FILE") || !strings.Contains(last, `"tool_use_id":"toolu_2"`) {
		t.Fatalf("the request after compaction: %.600s", last)
	}
	updates := e.Updates(sid)
	var got []*acp.CompactionUpdate
	var sizes []int64
	for _, u := range updates {
		switch u := u.(type) {
		case *acp.CompactionUpdate:
			got = append(got, u)
		case *acp.UsageUpdate:
			sizes = append(sizes, u.Size)
		}
	}
	if len(got) != 2 || got[0].Status != acp.CompactionInProgress || got[1].Status != acp.CompactionCompleted || got[0].CompactionID != got[1].CompactionID ||
		len(got[1].Summary) != 1 || !strings.HasPrefix(got[1].Summary[0].Text, "SUMMARY: the user wants both files read") {
		t.Fatalf("compaction updates = %s", toJSON(got))
	}
	for _, s := range sizes {
		if s != 20000 {
			t.Errorf("usage_update size %d, want the table's 20000", s)
		}
	}
	var text strings.Builder
	for _, u := range updates {
		if c, ok := u.(*acp.AgentMessageChunk); ok {
			text.WriteString(c.Content.Text)
		}
	}
	if strings.Contains(text.String(), "compacted") || !strings.HasSuffix(text.String(), "Both files hold x lines.") {
		t.Errorf("agent text = %q", text.String())
	}
	e.Kill()

	e = start()
	if err := e.Call(ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: work, MCPServers: []acp.MCPServer{}}, &json.RawMessage{}); err != nil {
		t.Fatal(err)
	}
	var replayed []*acp.CompactionUpdate
	for _, u := range e.Updates(sid) {
		if c, ok := u.(*acp.CompactionUpdate); ok {
			replayed = append(replayed, c)
		}
	}
	if len(replayed) != 1 || replayed[0].Status != acp.CompactionCompleted || replayed[0].CompactionID != got[1].CompactionID {
		t.Fatalf("replayed compaction updates = %s", toJSON(replayed))
	}
}

// compactionCapabilities are Zed's capabilities plus session.compaction.
func compactionCapabilities(t *testing.T) acp.ClientCapabilities {
	raw, _ := json.Marshal(acptest.ZedCapabilities())
	var m map[string]any
	json.Unmarshal(raw, &m)
	m["session"] = map[string]any{"compaction": map[string]any{}}
	raw, _ = json.Marshal(m)
	var caps acp.ClientCapabilities
	if err := json.Unmarshal(raw, &caps); err != nil {
		t.Fatal(err)
	}
	return caps
}
