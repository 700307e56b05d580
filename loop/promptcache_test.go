package loop_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// cacheSim replays a session's request bodies against Anthropic's prompt
// cache rules: a request is a sequence of blocks in prefix order (tools,
// system, then each message's content blocks); a breakpoint writes the
// prefix up to its block; a later request reads the longest prefix written
// before that ends at one of its breakpoints or up to 20 blocks before
// one. Tokens are estimated as bytes/4 of each block's JSON.
type cacheSim struct {
	written map[string]bool
}

type cacheStep struct {
	total, read, write int // tokens
}

type prefixBlock struct {
	hash   string // of the prefix up to and including this block
	tokens int    // cumulative
	marked bool
}

func prefixBlocks(body map[string]any) []prefixBlock {
	var units []any
	for _, key := range []string{"tools", "system"} {
		if list, ok := body[key].([]any); ok {
			units = append(units, list...)
		}
	}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		msg := m.(map[string]any)
		for _, b := range msg["content"].([]any) {
			units = append(units, map[string]any{"role": msg["role"], "block": b})
		}
	}
	h := sha256.New()
	var out []prefixBlock
	tokens := 0
	for _, u := range units {
		marked := false
		inner := u
		if w, ok := u.(map[string]any)["block"]; ok {
			inner = w
		}
		if m, ok := inner.(map[string]any); ok && m["cache_control"] != nil {
			marked = true
			clean := map[string]any{}
			for k, v := range m {
				if k != "cache_control" {
					clean[k] = v
				}
			}
			if w, ok := u.(map[string]any)["block"]; ok && w != nil {
				u = map[string]any{"role": u.(map[string]any)["role"], "block": clean}
			} else {
				u = clean
			}
		}
		data, _ := json.Marshal(u)
		h.Write(data)
		tokens += len(data) / 4
		out = append(out, prefixBlock{hash: hex.EncodeToString(h.Sum(nil)), tokens: tokens, marked: marked})
	}
	return out
}

func (c *cacheSim) request(body map[string]any) cacheStep {
	blocks := prefixBlocks(body)
	st := cacheStep{total: blocks[len(blocks)-1].tokens}
	lastMark := -1
	for i, b := range blocks {
		if !b.marked {
			continue
		}
		lastMark = i
		for k := i; k >= 0 && k >= i-20; k-- {
			if c.written[blocks[k].hash] && blocks[k].tokens > st.read {
				st.read = blocks[k].tokens
				break
			}
		}
	}
	for _, b := range blocks {
		if b.marked {
			c.written[b.hash] = true
		}
	}
	if lastMark >= 0 {
		st.write = max(blocks[lastMark].tokens-st.read, 0)
	}
	return st
}

// TestPromptCacheInAToolSession scripts a 20-step tool session (19 Read
// calls, then an answer) and checks that, under the cache rules, nearly
// all input after the first request is eligible for cache reads. With
// CORDIS_CACHE_REPORT set it prints the numbers BENCHMARKS.md holds.
func TestPromptCacheInAToolSession(t *testing.T) {
	const steps = 20
	var script []http.HandlerFunc
	h := looptest.NewHarness(t, looptest.Options{})
	file := filepath.Join(h.Cwd, "notes.md")
	if err := os.WriteFile(file, []byte(strings.Repeat("A line of project notes that the model reads again and again.\n", 60)), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < steps; i++ {
		script = append(script, looptest.StreamBlocks("tool_use",
			looptest.Text(fmt.Sprintf("Step %d: reading the notes again.", i)),
			looptest.ToolUse(fmt.Sprintf("toolu_%02d", i), "Read", map[string]any{"file_path": file})))
	}
	script = append(script, looptest.ReplyText("Done."))
	h.Model.Append(script...)
	sid := h.NewSession()
	h.Prompt(sid, "Read notes.md twenty times.")
	reqs := h.Model.Requests()
	if len(reqs) != steps {
		t.Fatalf("%d requests, want %d", len(reqs), steps)
	}
	sim := &cacheSim{written: map[string]bool{}}
	var total, read, write, laterTotal, laterRead int
	for i, body := range reqs {
		st := sim.request(body)
		total, read, write = total+st.total, read+st.read, write+st.write
		if i > 0 {
			laterTotal, laterRead = laterTotal+st.total, laterRead+st.read
		}
	}
	frac := float64(read) / float64(total)
	laterFrac := float64(laterRead) / float64(laterTotal)
	// Sonnet 4.5's list prices from the model table (per million input
	// tokens: 3 uncached, 3.75 cache write, 0.30 cache read).
	p := llm.LookupModel("claude-sonnet-4-5").Price
	without := p.Cost(llm.Usage{InputTokens: total})
	with := p.Cost(llm.Usage{InputTokens: total - read - write, CacheCreationInputTokens: write, CacheReadInputTokens: read})
	report := fmt.Sprintf("%d requests, %d input tokens (est.): %.1f%% cache reads overall, %.1f%% after the first request; "+
		"input cost on Sonnet 4.5 $%.4f without caching, $%.4f with (%.0f%% less)",
		len(reqs), total, 100*frac, 100*laterFrac, without, with, 100*(1-with/without))
	t.Log(report)
	if os.Getenv("CORDIS_CACHE_REPORT") != "" {
		fmt.Println(report)
	}
	if laterFrac < 0.85 {
		t.Errorf("only %.1f%% of the input after the first request is eligible for cache reads, want >= 85%%", 100*laterFrac)
	}
}
