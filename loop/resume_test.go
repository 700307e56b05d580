package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/sessionlog"
)

// conversationUpdates are the updates that show the conversation itself
// (what a replay sends), as opposed to the command list and options every
// opened session gets.
func conversationUpdates(updates []acp.SessionUpdate) []acp.SessionUpdate {
	var out []acp.SessionUpdate
	for _, u := range updates {
		switch u.(type) {
		case *acp.AgentMessageChunk, *acp.UserMessageChunk, *acp.AgentThoughtChunk, *acp.ToolCall, *acp.ToolCallUpdate, *acp.PlanUpdate:
			out = append(out, u)
		}
	}
	return out
}

// TestResumeRestoresWithoutReplay: session/resume in a new process sends
// none of the conversation back (the editor still shows it), yet the next
// turn's request carries the whole history; session/load of the same log
// replays it.
func TestResumeRestoresWithoutReplay(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{}, looptest.ReplyText("the first answer"))
	if h.Init.AgentCapabilities.SessionCapabilities.Resume == nil || h.Init.AgentCapabilities.SessionCapabilities.Delete == nil {
		t.Fatalf("resume and delete not advertised: %+v", h.Init.AgentCapabilities.SessionCapabilities)
	}
	sid := h.NewSession()
	h.Prompt(sid, "first question")

	closeSession(t, h, sid) // the first process is gone: its log is free
	h2 := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { c.StateDir = h.StateDir }}, looptest.ReplyText("the second answer"))
	var resumed acp.ResumeSessionResponse
	if err := h2.Editor.Call(h2.Ctx, acp.MethodSessionResume, acp.ResumeSessionRequest{SessionID: sid, Cwd: h.Cwd}, &resumed); err != nil {
		t.Fatal(err)
	}
	if resumed.Modes == nil || len(resumed.ConfigOptions) == 0 {
		t.Errorf("resume answered %+v, want the modes and config options", resumed)
	}
	if got := conversationUpdates(h2.Editor.Updates(sid)); len(got) != 0 {
		t.Fatalf("resume replayed %d conversation updates, want none: %+v", len(got), got)
	}
	h2.Prompt(sid, "second question")
	reqs := h2.Model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	body, _ := json.Marshal(reqs[0]["messages"])
	for _, want := range []string{"first question", "the first answer", "second question"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the request after resume lacks %q: %s", want, body)
		}
	}

	closeSession(t, h2, sid)
	h3 := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { c.StateDir = h.StateDir }})
	if err := h3.Editor.Call(h3.Ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: h.Cwd, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	if got := looptest.AgentText(h3.Editor.Updates(sid)); !strings.Contains(got, "the first answer") || !strings.Contains(got, "the second answer") {
		t.Fatalf("load replayed %q, want both answers", got)
	}
}

// TestResumeUnknownSession answers -32002, as load does.
func TestResumeUnknownSession(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{})
	err := h.Editor.Call(h.Ctx, acp.MethodSessionResume, acp.ResumeSessionRequest{SessionID: "sess_nope", Cwd: h.Cwd}, &acp.ResumeSessionResponse{})
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != acp.CodeResourceNotFound {
		t.Fatalf("resume of an unknown session: %v, want code %d", err, acp.CodeResourceNotFound)
	}
}

// TestDeleteSession: deleting an open session ends it (SessionEnd runs),
// removes its log, transcript and folder, and drops it from session/list;
// afterwards it is unknown to every method, delete included.
func TestDeleteSession(t *testing.T) {
	var ended []string
	seams := hookFunc(func(_ context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.SessionEnd {
			ended = append(ended, in.SessionID+":"+in.Reason)
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams}, looptest.ReplyText("hello"))
	sid := h.NewSession()
	keep := h.NewSession()
	h.Prompt(sid, "hi")
	logPath := sessionlog.Path(h.StateDir, sid)
	dir := strings.TrimSuffix(logPath, ".jsonl")
	// A hook dialect renders its transcript into the session's folder.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "transcript.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{logPath, filepath.Join(dir, "transcript.jsonl")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("before delete: %v", err)
		}
	}

	if err := h.Editor.Call(h.Ctx, acp.MethodSessionDelete, acp.DeleteSessionRequest{SessionID: sid}, &struct{}{}); err != nil {
		t.Fatal(err)
	}
	if len(ended) != 1 || ended[0] != sid+":other" {
		t.Errorf("SessionEnd ran for %q, want once for %s", ended, sid)
	}
	for _, p := range []string{logPath, dir} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists after delete (%v)", p, err)
		}
	}
	var list acp.ListSessionsResponse
	if err := h.Editor.Call(h.Ctx, acp.MethodSessionList, acp.ListSessionsRequest{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != keep {
		t.Errorf("session/list after delete = %+v, want only %s", list.Sessions, keep)
	}
	for _, call := range []struct {
		method string
		params any
	}{
		{acp.MethodSessionDelete, acp.DeleteSessionRequest{SessionID: sid}},
		{acp.MethodSessionResume, acp.ResumeSessionRequest{SessionID: sid, Cwd: h.Cwd}},
		{acp.MethodSessionPrompt, acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock("again")}}},
	} {
		err := h.Editor.Call(h.Ctx, call.method, call.params, &json.RawMessage{})
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != acp.CodeResourceNotFound {
			t.Errorf("%s after delete: %v, want code %d", call.method, err, acp.CodeResourceNotFound)
		}
	}
}

// closeSession closes sid in h's agent, as a process that ends does: the
// log is free for another agent to load (one writer per log).
func closeSession(t *testing.T, h *looptest.Harness, sid string) {
	t.Helper()
	if err := h.Editor.Call(h.Ctx, acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: sid}, nil); err != nil {
		t.Fatal(err)
	}
}
