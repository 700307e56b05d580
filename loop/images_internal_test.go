package loop

import (
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

func image(n int) llm.Block {
	return llm.Block{Type: llm.BlockImage, MediaType: "image/png", Data: strings.Repeat("A", n)}
}

// images lists what each image position of msgs became: "img" for a kept
// image, "note" for one left out, in message and block order.
func imageSlots(msgs []llm.Message) []string {
	var out []string
	var walk func([]llm.Block)
	walk = func(bs []llm.Block) {
		for _, b := range bs {
			switch {
			case b.Type == llm.BlockImage:
				out = append(out, "img")
			case b.Type == llm.BlockText && strings.HasPrefix(b.Text, "[an earlier image"):
				out = append(out, "note")
			case b.Type == llm.BlockToolResult:
				walk(b.Content)
			}
		}
	}
	for _, m := range msgs {
		walk(m.Content)
	}
	return out
}

// TestLimitImages: the newest images are kept, up to the count and the
// size limits, wherever they are (prompts or tool results); the older ones
// become notes in the request while the history keeps them.
func TestLimitImages(t *testing.T) {
	var history []llm.Message
	for i := 0; i < maxRequestImages+3; i++ {
		history = append(history,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "t", Name: "Read"}}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "t", Content: []llm.Block{llm.Text("Read image"), image(8)}}}})
	}
	history = append(history, llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("and this one"), image(8)}})

	got := imageSlots(limitImages(history))
	want := append([]string{"note", "note", "note", "note"}, strings.Split(strings.Repeat("img ", maxRequestImages), " ")[:maxRequestImages]...)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("image slots = %v\nwant %v", got, want)
	}
	if all := imageSlots(history); len(all) != maxRequestImages+4 || strings.Contains(strings.Join(all, " "), "note") {
		t.Fatalf("the history itself changed: %v", all)
	}

	// Size: two images that together pass the byte limit keep the newer.
	big := maxRequestImageBase64/2 + 1
	sized := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{image(big)}},
		{Role: llm.RoleUser, Content: []llm.Block{image(big)}},
	}
	if got := imageSlots(limitImages(sized)); strings.Join(got, " ") != "note img" {
		t.Fatalf("size limit: %v, want note img", got)
	}

	// Within the limits the request is the history itself.
	few := history[len(history)-3:]
	if out := limitImages(few); &out[0] != &few[0] {
		t.Fatal("a request within the limits was copied")
	}
}
