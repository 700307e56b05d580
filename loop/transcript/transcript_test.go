package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/llm"
)

func testOptions() Options {
	n := 0
	return Options{
		SessionID: "sess_1", Cwd: "/src/app", Version: "0.1.0", Model: "claude-sonnet-4-5",
		Now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.UTC) },
		NewUUID: func() string {
			n++
			return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
		},
	}
}

var conversation = []llm.Message{
	{Role: llm.RoleUser, Content: []llm.Block{llm.Text("fix the test")}},
	{Role: llm.RoleAssistant, Content: []llm.Block{
		{Type: llm.BlockThinking, Thinking: "hmm", Signature: "sig"},
		llm.Text("Running it."),
		{Type: llm.BlockToolUse, ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"go test"}`)},
	}},
	{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "toolu_1", Content: []llm.Block{llm.Text("FAIL")}, IsError: true}}},
	{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("Fixed.")}},
}

func TestFormat(t *testing.T) {
	path := Path(t.TempDir(), "sess_1")
	w, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(conversation...); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := w.Append(conversation[0]); err != ErrClosed {
		t.Fatalf("Append after Close: %v", err)
	}
	data, _ := os.ReadFile(path)
	want := `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/src/app","sessionId":"sess_1","version":"0.1.0","type":"user","message":{"role":"user","content":[{"type":"text","text":"fix the test"}]},"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2025-01-02T03:04:05.123Z"}
{"parentUuid":"00000000-0000-4000-8000-000000000001","isSidechain":false,"userType":"external","cwd":"/src/app","sessionId":"sess_1","version":"0.1.0","type":"assistant","message":{"id":"msg_00000000000040008000000000000002","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"text","text":"Running it."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test"}}]},"uuid":"00000000-0000-4000-8000-000000000002","timestamp":"2025-01-02T03:04:05.123Z"}
{"parentUuid":"00000000-0000-4000-8000-000000000002","isSidechain":false,"userType":"external","cwd":"/src/app","sessionId":"sess_1","version":"0.1.0","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"FAIL","is_error":true}]},"uuid":"00000000-0000-4000-8000-000000000003","timestamp":"2025-01-02T03:04:05.123Z"}
{"parentUuid":"00000000-0000-4000-8000-000000000003","isSidechain":false,"userType":"external","cwd":"/src/app","sessionId":"sess_1","version":"0.1.0","type":"assistant","message":{"id":"msg_00000000000040008000000000000004","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Fixed."}]},"uuid":"00000000-0000-4000-8000-000000000004","timestamp":"2025-01-02T03:04:05.123Z"}
`
	if string(data) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", data, want)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", info.Mode())
	}
}

func TestBlocks(t *testing.T) {
	got := blocks([]llm.Block{
		{Type: llm.BlockImage, MediaType: "image/png", Data: "AAAA"},
		{Type: llm.BlockRedactedThinking, Data: "opaque"},
		{Type: llm.BlockToolUse, ID: "t", Name: "Read"},
		{Type: llm.BlockToolResult, ToolUseID: "t", Content: []llm.Block{llm.Text("a"), {Type: llm.BlockImage, MediaType: "image/png", Data: "B"}}},
		llm.Text(""),
	})
	b, _ := json.Marshal(got)
	want := `[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}},{"type":"redacted_thinking","data":"opaque"},{"type":"tool_use","id":"t","name":"Read","input":{}},{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"B"}}]},{"type":"text","text":""}]`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

func TestReopenContinuesChainAndCutsTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w, _ := Open(path, testOptions())
	w.Append(conversation[:2]...)
	w.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"parentUuid":"torn`)
	f.Close()

	opts := testOptions()
	opts.NewUUID = func() string { return "next" }
	w, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.Append(conversation[2])
	w.Close()
	lines := readLines(t, path)
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	if lines[2]["parentUuid"] != "00000000-0000-4000-8000-000000000002" || lines[2]["uuid"] != "next" {
		t.Fatalf("chain: %v", lines[2])
	}
}

func TestRewriteAndSubagent(t *testing.T) {
	state := t.TempDir()
	path := SubagentPath(state, "sess_1", "agent_1")
	if want := filepath.Join(state, "sessions", "sess_1", "subagents", "agent_1.transcript.jsonl"); path != want {
		t.Fatalf("SubagentPath = %s", path)
	}
	if want := filepath.Join(state, "sessions", "sess_1", "transcript.jsonl"); Path(state, "sess_1") != want {
		t.Fatalf("Path = %s", Path(state, "sess_1"))
	}
	if p := Path(state, "../../etc"); !strings.HasPrefix(p, filepath.Join(state, "sessions")+"/") {
		t.Fatalf("id escaped the directory: %s", p)
	}
	opts := testOptions()
	opts.AgentID = "agent_1"
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte("old junk\n"), 0o600)
	if err := Rewrite(path, opts, conversation); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	if len(lines) != 4 || lines[0]["isSidechain"] != true || lines[0]["agentId"] != "agent_1" || lines[0]["parentUuid"] != nil {
		t.Fatalf("rewrite: %v", lines[0])
	}
}

// TestRalphStyleReader reads the last assistant text the way the
// ralph-wiggum stop hook does (grep the assistant lines, jq the text).
func TestRalphStyleReader(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed")
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w, _ := Open(path, Options{SessionID: "s", Cwd: "/x"})
	w.Append(conversation...)
	w.Close()
	out, err := exec.Command("sh", "-c", `grep '"role":"assistant"' "$1" | tail -1 | jq -r '.message.content | map(select(.type == "text")) | map(.text) | join("\n")'`, "sh", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) != "Fixed." {
		t.Fatalf("got %q", out)
	}
}

func TestConcurrentAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w, _ := Open(path, Options{SessionID: "s"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if err := w.Append(conversation[0]); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	w.Close()
	lines := readLines(t, path)
	if len(lines) != 160 {
		t.Fatalf("%d lines", len(lines))
	}
	for i := 1; i < len(lines); i++ {
		if lines[i]["parentUuid"] != lines[i-1]["uuid"] {
			t.Fatalf("chain broken at line %d", i+1)
		}
	}
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("bad line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}
