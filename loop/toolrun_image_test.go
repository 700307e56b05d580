package loop_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/cordis-agent/cordis/sessionlog"
	"github.com/google/go-cmp/cmp"
)

// writePNG writes a 3x2 PNG made by the standard library's encoder and
// returns its bytes.
func writePNG(t *testing.T, path string) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 3, 2))
	img.SetGray(1, 1, color.Gray{Y: 200})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// toolResultBlocks returns the content blocks of the tool_result for id in
// a recorded Anthropic request.
func toolResultBlocks(t *testing.T, req map[string]any, id string) []any {
	t.Helper()
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		content, _ := m.(map[string]any)["content"].([]any)
		for _, c := range content {
			if b := c.(map[string]any); b["type"] == "tool_result" && b["tool_use_id"] == id {
				blocks, _ := b["content"].([]any)
				return blocks
			}
		}
	}
	t.Fatalf("no tool_result for %s in request", id)
	return nil
}

// A Read of an image reaches the model as an image block inside the
// tool_result (after the text), the editor as image content in the final
// tool_call_update, the session log, and PostToolUse hooks.
func TestReadImageReachesModelEditorAndHooks(t *testing.T) {
	var mu sync.Mutex
	var responses []json.RawMessage
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.PostToolUse {
			mu.Lock()
			responses = append(responses, in.ToolResponse)
			mu.Unlock()
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams})
	path := filepath.Join(h.Cwd, "pic.png")
	data := writePNG(t, path)
	b64 := base64.StdEncoding.EncodeToString(data)
	// The scripted tool_use needs the path, known only now.
	h.Model.Append(looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Read", map[string]any{"file_path": path})), looptest.ReplyText("A tiny grey picture."))
	sid := h.NewSession()
	h.Prompt(sid, "What is in pic.png?")
	h.Model.CheckAllUsed()

	text := "Read image " + path + ": PNG, 3x2 pixels, " + itoa(len(data)) + " bytes."
	wantModel := []any{
		map[string]any{"type": "text", "text": text},
		map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": b64}},
	}
	if diff := cmp.Diff(wantModel, toolResultBlocks(t, h.Model.Requests()[1], "toolu_1")); diff != "" {
		t.Errorf("tool_result content (-want +got):\n%s", diff)
	}

	wantEditor := []acp.ToolCallContent{
		acp.ContentText(text),
		{Type: "content", Content: &acp.ContentBlock{Type: "image", MimeType: "image/png", Data: b64}},
	}
	ups := toolUpdates(h.Editor.Updates(sid), "toolu_1")
	last := ups[len(ups)-1]
	if last.Status != acp.ToolStatusCompleted {
		t.Errorf("final status %q", last.Status)
	}
	if diff := cmp.Diff(wantEditor, last.Content); diff != "" {
		t.Errorf("tool_call_update content (-want +got):\n%s", diff)
	}
	wire, _ := json.Marshal(last.Content[1])
	if want := `{"type":"content","content":{"type":"image","data":"` + b64 + `","mimeType":"image/png"}}`; string(wire) != want {
		t.Errorf("ACP image content = %s, want %s", wire, want)
	}

	logged := logData(logEvents(t, h.StateDir, sid, ""), sessionlog.TypeToolResult)
	if len(logged) != 1 {
		t.Fatalf("%d tool results logged", len(logged))
	}
	raw, _ := json.Marshal(logged[0]["content"])
	var gotLog []acp.ToolCallContent
	if err := json.Unmarshal(raw, &gotLog); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantEditor, gotLog); diff != "" {
		t.Errorf("logged content (-want +got):\n%s", diff)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(responses) != 1 {
		t.Fatalf("%d PostToolUse inputs", len(responses))
	}
	wantHook := `{"output":` + quote(text) + `,"images":[{"mediaType":"image/png","data":"` + b64 + `","size":` + itoa(len(data)) + `}]}`
	if string(responses[0]) != wantHook {
		t.Errorf("tool_response = %s, want %s", responses[0], wantHook)
	}
}

// A PostToolUse hook that replaces the result replaces all of it: the
// model and the editor get the replacement text and no image.
func TestReplacedImageResultDropsImages(t *testing.T) {
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.PostToolUse {
			s := "redacted"
			return hooks.Decision{ReplaceResult: &s}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams})
	path := filepath.Join(h.Cwd, "pic.png")
	writePNG(t, path)
	h.Model.Append(looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Read", map[string]any{"file_path": path})), looptest.ReplyText("ok"))
	sid := h.NewSession()
	h.Prompt(sid, "x")
	want := []any{map[string]any{"type": "text", "text": "redacted"}}
	if diff := cmp.Diff(want, toolResultBlocks(t, h.Model.Requests()[1], "toolu_1")); diff != "" {
		t.Errorf("tool_result content (-want +got):\n%s", diff)
	}
	ups := toolUpdates(h.Editor.Updates(sid), "toolu_1")
	// A Read card's text is shown verbatim (fenced), the image gone.
	if diff := cmp.Diff([]acp.ToolCallContent{acp.ContentText(tools.Fenced("redacted", ""))}, ups[len(ups)-1].Content); diff != "" {
		t.Errorf("tool_call_update content (-want +got):\n%s", diff)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
