package claude

import (
	"encoding/json"
	"testing"
)

// TestToolResponse: the loop's neutral {"output": ...} result becomes the
// tool_response Claude Code gives its hooks for the tools whose shape is
// known, and passes through unchanged otherwise.
func TestToolResponse(t *testing.T) {
	tests := []struct {
		name, tool, input, resp, want string
	}{
		{"bash", "Bash", `{"command":"ls"}`, `{"output":"a\nb"}`,
			`{"stdout":"a\nb","stderr":"","interrupted":false,"isImage":false}`},
		{"write", "Write", `{"file_path":"/w/a.go","content":"x"}`, `{"output":"ok"}`,
			`{"filePath":"/w/a.go","success":true}`},
		{"read text", "Read", `{"file_path":"/w/a.go"}`, `{"output":"     1\tx"}`, `{"output":"     1\tx"}`},
		{"read image", "Read", `{"file_path":"/w/a.png"}`,
			`{"output":"Read image /w/a.png: PNG","images":[{"mediaType":"image/png","data":"iVBORw0KGgo=","size":8}]}`,
			`{"type":"image","file":{"base64":"iVBORw0KGgo=","type":"image/png","originalSize":8}}`},
		{"images from another tool", "mcp__x__shot", `{}`,
			`{"output":"shot","images":[{"mediaType":"image/png","data":"AA==","size":1}]}`,
			`{"output":"shot","images":[{"mediaType":"image/png","data":"AA==","size":1}]}`},
		{"unknown shape", "Bash", `{}`, `{"output":"x","extra":1}`, `{"output":"x","extra":1}`},
		{"empty", "Bash", `{}`, ``, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toolResponse(tt.tool, json.RawMessage(tt.input), json.RawMessage(tt.resp))
			if string(got) != tt.want {
				t.Fatalf("toolResponse = %s\nwant %s", got, tt.want)
			}
		})
	}
}
