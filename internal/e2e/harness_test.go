package e2e_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// fixedNow is the fixed harness's clock: every timestamp is this instant.
var fixedNow = time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.UTC)

// newFixedHarness is a looptest.Harness whose clock, version and context
// window are fixed, so that the renderings of its sessions compare byte
// for byte.
func newFixedHarness(t *testing.T, seams hooks.Seams, mode string, script ...http.HandlerFunc) *looptest.Harness {
	t.Helper()
	return looptest.NewHarness(t, looptest.Options{
		Hooks: seams, Mode: mode, Anthropic: anthropic.Config{MaxRetries: 1},
		Config: func(c *loop.Config) {
			c.ContextWindow, c.Version, c.Now = 200000, version, func() time.Time { return fixedNow }
		},
	}, script...)
}

// answer is a scripted answer whose usage varies with inputTokens (and
// reads 7 tokens from the cache), so that the renderings' totals are
// checked.
func answer(inputTokens int, stop string, blocks ...looptest.Block) http.HandlerFunc {
	return looptest.Reply{Stop: stop, Blocks: blocks, InputTokens: inputTokens, CacheReadTokens: 7}.Handler()
}

// reply is an answer of one text that ends the turn.
func reply(s string) http.HandlerFunc { return answer(100, "end_turn", looptest.Text(s)) }

// call sends an ACP request whose result does not matter.
func call(t *testing.T, h *looptest.Harness, method string, params any) {
	t.Helper()
	if err := h.Editor.Call(h.Ctx, method, params, &json.RawMessage{}); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// bashEcho is a Bash call that echoes text.
func bashEcho(id, text string) looptest.Block {
	return looptest.ToolUse(id, "Bash", map[string]any{"command": "echo " + text})
}
