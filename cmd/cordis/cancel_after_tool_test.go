package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/sessionlog"
)

// The editor writes the file a Write asked for, then cancels the turn
// before it answers (the cancel lands as the tool finishes). The file was
// written, so the editor's last tool_call_update, the session log and
// the next model request all say the Write completed, with its own
// result. Before the fix the call showed "The user interrupted this tool
// call." (or, when the editor's answer was abandoned, "cannot write")
// although the file had changed.
func TestCancelAsTheEditorWritesKeepsTheWrite(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t)
	p := startProc(t, model.srv.URL, procOpts{config: bypassConfig("")})
	target := filepath.Join(p.work, "notes.txt")
	script(model, [][3]string{{"toolu_w", "Write", inputJSON(map[string]any{"file_path": target, "content": "written\n"})}})
	var sid string
	p.e.OnRequest = func(_ context.Context, method string, params json.RawMessage) (any, error) {
		res, err := acptest.ServeFile(method, params)
		if method == acp.MethodFSWriteTextFile {
			// Sent before the answer, so cordis reads the cancel first.
			p.e.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid})
		}
		return res, err
	}
	var caps acp.ClientCapabilities
	caps.FS.ReadTextFile, caps.FS.WriteTextFile = true, true
	p.e.Initialize(ctx, caps)
	sid = p.e.NewSession(ctx, p.work).SessionID

	stop, err := p.e.Prompt(ctx, sid, "write the notes")
	if err != nil || stop != acp.StopCancelled {
		t.Fatalf("prompt = %q, %v; want cancelled", stop, err)
	}
	if got, _ := os.ReadFile(target); string(got) != "written\n" {
		t.Fatalf("the editor did not write the file: %q", got)
	}
	const want = "Created " // the Write's own result
	if status, text := toolStatus(p, sid, "toolu_w"); status != acp.ToolStatusCompleted {
		t.Errorf("the editor was last shown the Write %q: %q", status, text)
	}

	events, _, err := sessionlog.Read(sessionlog.Path(p.state, sid))
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	for _, e := range events {
		if e.Type == sessionlog.TypeToolResult {
			logged = append(logged, string(e.Data))
		}
	}
	if len(logged) != 1 || !strings.Contains(logged[0], `"status":"completed"`) || !strings.Contains(logged[0], want+target) {
		t.Errorf("tool/result events: %v", logged)
	}

	// The next request carries the Write's result and why the turn
	// stopped there.
	if stop, err := p.e.Prompt(ctx, sid, "go on"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("next prompt = %q, %v", stop, err)
	}
	text, isError, ok := sentResult(t, model, "toolu_w")
	if !ok || isError || !strings.HasPrefix(text, want+target) || strings.Contains(text, "interrupted") || !strings.Contains(text, "cancelled the turn") {
		t.Errorf("the model got %q (error %v, sent %v)", text, isError, ok)
	}
}
