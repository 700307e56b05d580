package wire

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// longSessionBodies runs a long tool session through the real loop and
// Anthropic provider with a 20,000-token window, so that it compacts in
// the middle of the turn and then recovers from a "prompt is too long"
// answer by compacting again: every request it sends (the steps, the
// summary requests, the steps after them with the kept tool_use and
// tool_result) is checked like the others.
func longSessionBodies(t *testing.T) []body {
	t.Helper()
	h := looptest.NewHarness(t, looptest.Options{
		Mode:      loop.ModeBypass,
		Anthropic: anthropic.Config{Model: "claude-sonnet-4-5"},
		Config: func(c *loop.Config) {
			c.ContextWindow, c.MaxTokens = 20_000, 1000
		},
	})
	line := strings.Repeat("x", 79) + "\n"
	var files []string
	for _, name := range []string{"one.txt", "two.txt", "three.txt"} {
		f := filepath.Join(h.Cwd, name)
		if err := os.WriteFile(f, []byte(name+"\n"+strings.Repeat(line, 500)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	read := func(id, file string, input int) http.HandlerFunc {
		return looptest.Reply{Stop: "tool_use", InputTokens: input, Blocks: []looptest.Block{
			looptest.Text("Reading " + filepath.Base(file) + "."), looptest.ToolUse(id, "Read", map[string]any{"file_path": file})}}.Handler()
	}
	tooLong := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 20412 tokens > 20000 maximum"}}`))
	}
	h.Model.Append(
		read("toolu_01", files[0], 3000),
		read("toolu_02", files[1], 13000),
		looptest.ReplyText("SUMMARY: the user wants three files read; one.txt is read."),
		read("toolu_03", files[2], 2000), // an undercount: the API refuses what cordis let through
		tooLong,
		looptest.ReplyText("SUMMARY: one.txt and two.txt are read; three.txt is being read."),
		looptest.ReplyText("All three files hold x lines."),
	)
	sid := h.NewSession()
	h.Prompt(sid, "Read one.txt, two.txt and three.txt, then say what they hold.")
	h.Model.CheckAllUsed()
	var out []body
	for i, req := range h.Model.Requests() {
		data, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		v, err := decodeJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		pretty, err := marshal(expandAll(v))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, body{Name: "loop.long-session." + twoDigits(i+1), Data: pretty})
	}
	if len(out) != 7 {
		t.Fatalf("the long session sent %d requests, want 7", len(out))
	}
	return out
}

func twoDigits(n int) string {
	return string([]byte{byte('0' + n/10), byte('0' + n%10)})
}
