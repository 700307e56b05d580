package anthropic

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

var update = flag.Bool("update", false, "rewrite golden files")

// everyBlockRequest uses every block type the encoder supports.
func everyBlockRequest() *llm.Request {
	return &llm.Request{
		Model:     "claude-from-request",
		MaxTokens: 4096,
		System:    []string{"You are cordis.", "", "Be brief."},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{
				llm.Text("What is in this image?"),
				{Type: llm.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockThinking, Thinking: "The user wants a file listing.", Signature: "EqQBCgIYAhIM"},
				{Type: llm.BlockRedactedThinking, Data: "EmwKAhgBEgy3va3pzix"},
				llm.Text(""), // dropped: the API rejects empty text blocks
				llm.Text("Let me look."),
				{Type: llm.BlockToolUse, ID: "toolu_01", Name: "Bash", Input: json.RawMessage("{\"command\": \"ls\",\n \"timeout\": 10}")},
				{Type: llm.BlockToolUse, ID: "toolu_02", Name: "Glob", Text: `{"pattern": "*.go`}, // unparsed input: sent as {}
			}},
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockToolResult, ToolUseID: "toolu_01", Content: []llm.Block{llm.Text("a.go\nb.go")}},
				{Type: llm.BlockToolResult, ToolUseID: "toolu_02", IsError: true, Content: []llm.Block{
					llm.Text("tool input was not valid JSON"),
					{Type: llm.BlockImage, MediaType: "image/jpeg", Data: "/9j/4AAQ"},
				}},
				{Type: llm.BlockToolResult, ToolUseID: "toolu_03"},
			}},
		},
		Tools: []llm.ToolSpec{
			{Name: "Bash", Description: "Run a command.", InputSchema: json.RawMessage(`{"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"], "additionalProperties": false}`)},
			{Name: "NoSchema"},
		},
		ThinkingBudget: 2048,
	}
}

func TestEncodeRequestGolden(t *testing.T) {
	got, err := EncodeRequest(everyBlockRequest(), "claude-override")
	if err != nil {
		t.Fatal(err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')
	golden := filepath.Join("testdata", "request_every_block.golden.json")
	if *update {
		if err := os.WriteFile(golden, indented.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, indented.Bytes()) {
		t.Errorf("request body differs from %s (run go test -update after checking):\n%s", golden, indented.Bytes())
	}
	// Byte-identical across calls: the replay harness diffs raw bodies.
	for range 20 {
		again, err := EncodeRequest(everyBlockRequest(), "claude-override")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, again) {
			t.Fatal("EncodeRequest is not deterministic")
		}
	}
}

func TestEncodeRequestErrors(t *testing.T) {
	tests := []struct {
		name string
		req  *llm.Request
	}{
		{name: "unknown block type", req: &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: "video"}}}}}},
		{name: "invalid tool input", req: &llm.Request{Messages: []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "t", Input: json.RawMessage(`{"a":`)}}}}}},
	}
	for _, tt := range tests {
		if _, err := EncodeRequest(tt.req, "m"); err == nil {
			t.Errorf("%s: EncodeRequest succeeded, want an error", tt.name)
		}
	}
}

func TestEncodeRequestUsesRequestModelByDefault(t *testing.T) {
	got, err := EncodeRequest(&llm.Request{Model: "from-req", MaxTokens: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"model":"from-req","max_tokens":1,"messages":[],"stream":true}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// An image a tool returns (Read of a PNG) stays inside its tool_result, after
// the text, as a base64 image source: the Messages API's shape.
func TestEncodeToolResultImage(t *testing.T) {
	req := &llm.Request{Model: "m", MaxTokens: 1, Messages: []llm.Message{
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"file_path":"/w/a.png"}`)}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "toolu_1", Content: []llm.Block{
			llm.Text("Read image /w/a.png: PNG, 1x1 pixels, 8 bytes."),
			{Type: llm.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
		}}}},
	}}
	got, err := EncodeRequest(req, "")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","max_tokens":1,"messages":[` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/w/a.png"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[` +
		`{"type":"text","text":"Read image /w/a.png: PNG, 1x1 pixels, 8 bytes."},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}],"cache_control":{"type":"ephemeral"}}]}],` +
		`"stream":true}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
