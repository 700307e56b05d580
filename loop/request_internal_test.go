package loop

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// Whitespace-only text is left out of the request (the API refuses it);
// the history, which the editor is shown from, keeps it.
func TestRequestMessagesLeaveOutBlankText(t *testing.T) {
	history := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("list files")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("\n\n"), {Type: llm.BlockToolUse, ID: "t1", Name: "Bash", Input: json.RawMessage(`{}`)}}},
		{Role: llm.RoleUser, Content: []llm.Block{toolResult("t1", "a.go", false)}},
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("  ")}},
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("thanks")}},
	}
	got := requestMessages(history, llm.CapsOf("claude-sonnet-4-5"))
	var roles []string
	for _, m := range got {
		roles = append(roles, string(m.Role))
		for _, b := range m.Content {
			if b.Type == llm.BlockText && strings.TrimSpace(b.Text) == "" {
				t.Errorf("whitespace-only text in the request: %+v", m)
			}
		}
	}
	if strings.Join(roles, " ") != "user assistant user" {
		t.Errorf("roles = %v, want the emptied assistant message gone and its neighbours joined", roles)
	}
	if history[1].Content[0].Text != "\n\n" || history[3].Content[0].Text != "  " {
		t.Error("the history was changed")
	}
}

// A model that takes no images gets a note in place of each, in prompts
// and tool results alike.
func TestRequestMessagesForATextOnlyModel(t *testing.T) {
	history := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("what is this?"), image(8)}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "t", Name: "Read"}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "t", Content: []llm.Block{llm.Text("Read image"), image(8)}}}},
	}
	count := func(msgs []llm.Message) (images, notes int) {
		for _, m := range msgs {
			for _, b := range append(m.Content, m.Content[len(m.Content)-1].Content...) {
				switch {
				case b.Type == llm.BlockImage:
					images++
				case b.Type == llm.BlockText && strings.Contains(b.Text, "does not take images"):
					notes++
				}
			}
		}
		return
	}
	if images, notes := count(requestMessages(history, llm.CapsOf("deepseek-chat"))); images != 0 || notes != 2 {
		t.Errorf("deepseek-chat: %d images, %d notes; want 0 and 2", images, notes)
	}
	if images, notes := count(requestMessages(history, llm.CapsOf("claude-sonnet-4-5"))); images != 2 || notes != 0 {
		t.Errorf("claude: %d images, %d notes; want 2 and 0", images, notes)
	}
}

func TestCheckImage(t *testing.T) {
	png := "iVBORw0KGgo="
	for _, tc := range []struct {
		mime, data, want string
	}{
		{"image/png", png, ""},
		{"image/jpg", png, ""},
		{"image/webp", png, ""},
		{"image/bmp", png, `image type "image/bmp" is not supported; send JPEG, PNG, GIF or WebP`},
		{"image/png", "not base64!", "not valid base64"},
		{"image/png", strings.Repeat("A", 8<<20), "the limit is 5 MB"},
	} {
		_, err := checkImage(tc.mime, tc.data)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.mime, err, tc.want)
		}
	}
}

// A log written before the fix holds an unsigned (cut-off) thinking
// block; load leaves it out, and the message when nothing else is left.
func TestRepairDropsCutThinking(t *testing.T) {
	in := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("q")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockThinking, Thinking: "half"}}},
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("q2")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockThinking, Thinking: "cut"}, llm.Text("partial")}},
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("q3")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockThinking, Thinking: "whole", Signature: "sig"}, llm.Text("a")}},
	}
	out := repairHistory(in)
	if len(out) != 5 {
		t.Fatalf("%d messages, want 5 (the thinking-only one dropped): %+v", len(out), out)
	}
	for _, m := range out {
		for _, b := range m.Content {
			if b.Type == llm.BlockThinking && b.Signature == "" {
				t.Errorf("an unsigned thinking block survived: %+v", m)
			}
		}
	}
	if last := out[len(out)-1].Content[0]; last.Signature != "sig" {
		t.Errorf("a signed thinking block was dropped: %+v", last)
	}
}

// Cache reads and writes are priced apart: for Sonnet 4.5, $3 input,
// $3.75 cache write, $0.30 cache read, $15 output per million tokens.
func TestCostPricesCacheReadsAndWrites(t *testing.T) {
	p := (&Agent{}).priceOf("claude-sonnet-4-5-20250929")
	if p == nil {
		t.Fatal("no price for a dated Sonnet 4.5")
	}
	got := p.Cost(llm.Usage{InputTokens: 1_000_000, CacheCreationInputTokens: 1_000_000, CacheReadInputTokens: 1_000_000, OutputTokens: 1_000_000})
	if want := 3 + 3.75 + 0.30 + 15.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("cost = %v, want %v", got, want)
	}
}
