package rendering

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/sessionlog"
)

// resultFormat renders each message's tool_result texts, to see what a
// dialect's transcript would hold.
type resultFormat struct{ textFormat }

func (resultFormat) Start(File) (Renderer, []byte) { return resultRenderer{}, nil }

type resultRenderer struct{}

func (resultRenderer) Render(e Entry) []byte {
	var b strings.Builder
	if e.Message != nil {
		for _, blk := range e.Message.Content {
			if blk.Type == llm.BlockToolResult {
				b.WriteString(blk.ToolUseID + "=" + blk.Content[0].Text + "\n")
			}
		}
	}
	return []byte(b.String())
}

// TestToolOutputsStoredOnce: a message that leaves its tool outputs to
// the tool/result events before it (toolOutputs, log version 2) is
// rendered with them, text after the output kept; one that carries its
// text (version 1) is rendered as it is; a Sync between the result and
// the message changes nothing.
func TestToolOutputsStoredOnce(t *testing.T) {
	lg := newLog(t, filepath.Join(t.TempDir(), "s.jsonl"))
	lg.add(sessionlog.TypeSessionStart, map[string]string{"sessionId": "s", "cwd": "/w", "model": "m0", "mode": "default"})
	lg.add(sessionlog.TypeToolResult, map[string]any{"toolCallId": "t1", "output": "the output"})
	set := NewSet(resultFormat{})
	in := &hooks.Input{SessionLogPath: lg.path}
	if _, err := set.Sync(in); err != nil {
		t.Fatal(err)
	}
	lg.add(sessionlog.TypeToolResult, map[string]any{"toolCallId": "t2", "output": "old output"})
	lg.add(sessionlog.TypeMessage, map[string]any{"role": "user", "toolOutputs": []string{"t1"}, "content": []map[string]any{
		{"type": "tool_result", "tool_use_id": "t1", "content": []map[string]any{{"type": "text", "text": "\n\nhook context"}}},
		{"type": "tool_result", "tool_use_id": "t2", "content": []map[string]any{{"type": "text", "text": "old output"}}},
	}})
	paths, err := set.Sync(in)
	if err != nil {
		t.Fatal(err)
	}
	want := "t1=the output\n\nhook context\nt2=old output\n"
	if got := read(t, paths.Session); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}
