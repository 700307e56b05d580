package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// decodedBody is an encoded request read back for checks on its shape.
type decodedBody struct {
	Tools    []map[string]any `json:"tools"`
	Thinking map[string]any   `json:"thinking"`
	Messages []struct {
		Role    string           `json:"role"`
		Content []map[string]any `json:"content"`
	} `json:"messages"`
}

func encodeAndDecode(t *testing.T, req *llm.Request) (decodedBody, string) {
	t.Helper()
	raw, err := EncodeRequest(req, "")
	if err != nil {
		t.Fatal(err)
	}
	var body decodedBody
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	return body, string(raw)
}

func user(blocks ...llm.Block) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: blocks}
}

func assistant(blocks ...llm.Block) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: blocks}
}

// An unsigned thinking block (cut off by a cancel or an error) and
// whitespace-only text are never sent: the API answers 400 to both, on
// every later turn of the session.
func TestEncodeLeavesOutWhatTheAPIRefuses(t *testing.T) {
	req := &llm.Request{Model: "claude-sonnet-4-5", MaxTokens: 100, Messages: []llm.Message{
		user(llm.Text("first")),
		assistant(llm.Block{Type: llm.BlockThinking, Thinking: "half a thou"}), // partial: no signature
		user(llm.Text("   ")),
		assistant(llm.Text("\n\n"), llm.Block{Type: llm.BlockToolUse, ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{}`)}),
		user(llm.Block{Type: llm.BlockToolResult, ToolUseID: "toolu_1", Content: []llm.Block{llm.Text(" \n")}}, llm.Text("next")),
	}}
	body, raw := encodeAndDecode(t, req)
	if strings.Contains(raw, `"signature":""`) || strings.Contains(raw, "half a thou") {
		t.Errorf("an unsigned thinking block was sent: %s", raw)
	}
	if strings.Contains(raw, `"text":"   "`) || strings.Contains(raw, `"text":"\n\n"`) || strings.Contains(raw, `"text":" \n"`) {
		t.Errorf("whitespace-only text was sent: %s", raw)
	}
	var roles []string
	for _, m := range body.Messages {
		roles = append(roles, m.Role)
		if len(m.Content) == 0 {
			t.Errorf("an empty %s message was sent: %s", m.Role, raw)
		}
	}
	// The emptied assistant and user messages go; "first" then joins the
	// next user message's neighbours in one user message.
	if got := strings.Join(roles, " "); got != "user assistant user" {
		t.Errorf("roles = %s, want user assistant user: %s", got, raw)
	}
}

func TestEncodeKeepsSignedThinking(t *testing.T) {
	req := &llm.Request{Model: "claude-sonnet-4-5", MaxTokens: 100, Messages: []llm.Message{
		user(llm.Text("q")),
		assistant(llm.Block{Type: llm.BlockThinking, Thinking: "done", Signature: "sig"}, llm.Text("a")),
		user(llm.Text("q2")),
	}}
	_, raw := encodeAndDecode(t, req)
	if !strings.Contains(raw, `{"type":"thinking","thinking":"done","signature":"sig"}`) {
		t.Errorf("the signed thinking block is missing: %s", raw)
	}
}

func TestThinkingFormFollowsTheModel(t *testing.T) {
	for model, want := range map[string]string{
		"claude-sonnet-4-5":          `{"budget_tokens":2048,"type":"enabled"}`,
		"claude-opus-4-1-20250805":   `{"budget_tokens":2048,"type":"enabled"}`,
		"claude-haiku-4-5":           `{"budget_tokens":2048,"type":"enabled"}`,
		"claude-sonnet-4-6":          `{"type":"adaptive"}`,
		"claude-opus-4-6":            `{"type":"adaptive"}`,
		"claude-opus-4-7":            `{"type":"adaptive"}`,
		"claude-opus-4-20250514":     `{"budget_tokens":2048,"type":"enabled"}`,
		"claude-3-7-sonnet-20250219": `{"budget_tokens":2048,"type":"enabled"}`,
	} {
		req := &llm.Request{Model: model, MaxTokens: 8192, ThinkingBudget: 2048, Messages: []llm.Message{user(llm.Text("q"))}}
		body, _ := encodeAndDecode(t, req)
		got, _ := json.Marshal(body.Thinking)
		if string(got) != want {
			t.Errorf("%s: thinking = %s, want %s", model, got, want)
		}
	}
}

func TestConfigRefusesAThinkingBudgetTheAPIRefuses(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, tc := range []struct {
		cfg  Config
		want string // "" for a valid config
	}{
		{Config{Model: "claude-sonnet-4-5", ThinkingBudget: 10000}, "thinkingBudget 10000 must be less than maxTokens 8192"},
		{Config{Model: "claude-sonnet-4-5", ThinkingBudget: 500, MaxTokens: 4096}, "thinkingBudget 500 is below the API's minimum of 1024"},
		{Config{Model: "claude-sonnet-4-5", ThinkingBudget: 4096, MaxTokens: 4096}, "must be less than maxTokens 4096"},
		{Config{Model: "claude-sonnet-4-5", ThinkingBudget: 4096, MaxTokens: 16000}, ""},
		{Config{Model: "claude-opus-4-7", ThinkingBudget: 10000}, ""}, // adaptive: no budget is sent
		{Config{Model: "claude-sonnet-4-5"}, ""},
	} {
		_, err := resolve(tc.cfg, getenv)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.cfg, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want one containing %q", tc.cfg, err, tc.want)
		}
	}
}

// Breakpoints: the last tool, the first message, and the last two user
// messages; never more than four, never on a thinking block.
func TestCacheBreakpoints(t *testing.T) {
	tool := func(name string) llm.ToolSpec {
		return llm.ToolSpec{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	use := func(id string) llm.Block {
		return llm.Block{Type: llm.BlockToolUse, ID: id, Name: "Read", Input: json.RawMessage(`{}`)}
	}
	result := func(id string) llm.Block {
		return llm.Block{Type: llm.BlockToolResult, ToolUseID: id, Content: []llm.Block{llm.Text("ok")}}
	}
	msgs := []llm.Message{user(llm.Text("context"), llm.Text("do it"))}
	for i, id := range []string{"toolu_1", "toolu_2", "toolu_3"} {
		msgs = append(msgs, assistant(llm.Block{Type: llm.BlockThinking, Thinking: "t", Signature: "s"}, use(id)), user(result(id)))
		req := &llm.Request{Model: "claude-sonnet-4-5", MaxTokens: 100, System: []string{"sys"}, Tools: []llm.ToolSpec{tool("A"), tool("B")}, Messages: msgs}
		body, raw := encodeAndDecode(t, req)
		marked := []string{}
		count := 0
		for j, tl := range body.Tools {
			if tl["cache_control"] != nil {
				marked, count = append(marked, "tool"+string(rune('0'+j))), count+1
			}
		}
		for m, msg := range body.Messages {
			for b, blk := range msg.Content {
				if blk["cache_control"] == nil {
					continue
				}
				count++
				if blk["type"] == "thinking" {
					t.Errorf("a breakpoint on a thinking block: %s", raw)
				}
				if b != len(msg.Content)-1 {
					t.Errorf("message %d: breakpoint on block %d of %d", m, b, len(msg.Content))
				}
				marked = append(marked, "msg"+string(rune('0'+m)))
			}
		}
		if count > 4 {
			t.Errorf("%d breakpoints, the API allows 4", count)
		}
		last := len(body.Messages) - 1
		want := []string{"tool1", "msg0", "msg" + string(rune('0'+last-2)), "msg" + string(rune('0'+last))}
		if i == 0 {
			want = []string{"tool1", "msg0", "msg2"}
		}
		if strings.Join(marked, " ") != strings.Join(want, " ") {
			t.Errorf("step %d: breakpoints on %v, want %v", i+1, marked, want)
		}
	}
}
