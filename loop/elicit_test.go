package loop_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// An MCP server that elicits during a tool call reaches the editor, which
// advertised elicitation.form, as ACP elicitation/create naming the session
// and the tool call; the editor's answer reaches the server, whose result
// reaches the model.
func TestMCPElicitationReachesEditor(t *testing.T) {
	caps := acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.Supported{}}}
	h := looptest.NewHarness(t, looptest.Options{Caps: caps},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_ask", "mcp__t__ask", map[string]any{"message": "Which name?"})),
		looptest.ReplyText("done"))
	h.Editor.OnPermission = looptest.Allow(acp.PermAllowOnce)
	var (
		mu     sync.Mutex
		params []acp.CreateElicitationRequest
	)
	h.Editor.OnRequest = func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		if method != acp.MethodElicitationCreate {
			return nil, &acp.Error{Code: acp.CodeMethodNotFound, Message: "no " + method}
		}
		var p acp.CreateElicitationRequest
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		mu.Lock()
		params = append(params, p)
		mu.Unlock()
		return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada", "count": 3}}, nil
	}
	sid := newSessionWith(t, h, stdioMCP("t", "elicit"))
	if stop := h.Prompt(sid, "ask me"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	h.Model.CheckAllUsed()
	got, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_ask")
	if want := `result: {"action":"accept","content":{"count":3,"name":"Ada"}}`; got != want || isErr {
		t.Errorf("tool result = %q (error %v), want %q", got, isErr, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(params) != 1 {
		t.Fatalf("the editor got %d elicitations, want 1", len(params))
	}
	p := params[0]
	if p.SessionID != sid || p.ToolCallID != "toolu_ask" || p.Mode != "form" || p.Message != `The MCP server "t" asks: Which name?` {
		t.Errorf("elicitation = session %q tool call %q mode %q message %q", p.SessionID, p.ToolCallID, p.Mode, p.Message)
	}
	if !strings.Contains(string(p.RequestedSchema), `"name":{"title":"Name","type":"string"}`) {
		t.Errorf("requestedSchema = %s, want the server's", p.RequestedSchema)
	}
}

// An editor without elicitation.form gets no elicitation: the MCP server
// is not offered the capability and its request is refused (-32601).
func TestMCPElicitationNeedsEditorCapability(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{},
		looptest.StreamBlocks("tool_use",
			looptest.ToolUse("toolu_caps", "mcp__t__caps", map[string]any{}),
			looptest.ToolUse("toolu_ask", "mcp__t__ask", map[string]any{"message": "Which name?"})),
		looptest.ReplyText("done"))
	h.Editor.OnPermission = looptest.Allow(acp.PermAllowOnce)
	h.Editor.OnRequest = func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}, nil
	}
	sid := newSessionWith(t, h, stdioMCP("t", "elicit"))
	if stop := h.Prompt(sid, "ask me"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	req := h.Model.Requests()[1]
	if got, _ := looptest.ToolResult(t, req, "toolu_caps"); got != `{"roots":{}}` {
		t.Errorf("the MCP server was offered %s, want roots only", got)
	}
	if got, _ := looptest.ToolResult(t, req, "toolu_ask"); !strings.HasPrefix(got, `error: {"code":-32601,`) {
		t.Errorf("tool result = %q, want the elicitation refused with -32601", got)
	}
	for _, c := range h.Editor.Calls() {
		if c.Method == acp.MethodElicitationCreate {
			t.Errorf("the editor got %s %s", c.Method, c.Params)
		}
	}
}
