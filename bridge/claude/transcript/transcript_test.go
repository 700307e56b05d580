package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/bridge/internal/rendering"
	"github.com/cordis-agent/cordis/llm"
)

// testFormat numbers uuids from 1.
func testFormat() Format {
	n := 0
	return Format{Version: "0.1.0", NewUUID: func() string {
		n++
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	}}
}

var testFile = rendering.File{SessionID: "sess_1", Cwd: "/src/app", Model: "claude-sonnet-4-5"}

// render renders msgs as entries of one file, stamped at one instant.
func render(f Format, file rendering.File, msgs ...llm.Message) []byte {
	r, out := f.Start(file)
	for i, m := range msgs {
		out = append(out, r.Render(rendering.Entry{Time: time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.UTC), Seq: int64(i + 1), Cwd: file.Cwd, Message: &m})...)
	}
	return out
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
	// Turns and usage have no line in a transcript.
	r, _ := testFormat().Start(testFile)
	if b := r.Render(rendering.Entry{Turn: &rendering.Turn{ID: "t"}}); b != nil {
		t.Fatalf("a turn rendered %s", b)
	}
	data := render(testFormat(), testFile, conversation...)
	want := `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/src/app","sessionId":"sess_1","version":"0.1.0","type":"user","message":{"role":"user","content":[{"type":"text","text":"fix the test"}]},"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2025-01-02T03:04:05.123Z"}
{"parentUuid":"00000000-0000-4000-8000-000000000001","isSidechain":false,"userType":"external","cwd":"/src/app","sessionId":"sess_1","version":"0.1.0","type":"assistant","message":{"id":"msg_00000000000040008000000000000002","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"text","text":"Running it."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test"}}]},"uuid":"00000000-0000-4000-8000-000000000002","timestamp":"2025-01-02T03:04:05.123Z"}
{"parentUuid":"00000000-0000-4000-8000-000000000002","isSidechain":false,"userType":"external","cwd":"/src/app","sessionId":"sess_1","version":"0.1.0","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"FAIL","is_error":true}]},"uuid":"00000000-0000-4000-8000-000000000003","timestamp":"2025-01-02T03:04:05.123Z"}
{"parentUuid":"00000000-0000-4000-8000-000000000003","isSidechain":false,"userType":"external","cwd":"/src/app","sessionId":"sess_1","version":"0.1.0","type":"assistant","message":{"id":"msg_00000000000040008000000000000004","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Fixed."}]},"uuid":"00000000-0000-4000-8000-000000000004","timestamp":"2025-01-02T03:04:05.123Z"}
`
	if string(data) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", data, want)
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

// TestPathsAndSubagent: a transcript lies beside its log, and a
// subagent's lines are a sidechain with its agentId.
func TestPathsAndSubagent(t *testing.T) {
	state := t.TempDir()
	if got, want := (Format{}).Path(filepath.Join(state, "sessions", "sess_1.jsonl"), false), filepath.Join(state, "sessions", "sess_1", "transcript.jsonl"); got != want {
		t.Fatalf("Path = %s, want %s", got, want)
	}
	agentLog := filepath.Join(state, "sessions", "sess_1", "subagents", "agent_1.jsonl")
	if got, want := (Format{}).Path(agentLog, true), filepath.Join(state, "sessions", "sess_1", "subagents", "agent_1.transcript.jsonl"); got != want {
		t.Fatalf("agent Path = %s, want %s", got, want)
	}
	file := testFile
	file.AgentID = "agent_1"
	lines := parseLines(t, render(testFormat(), file, conversation...))
	if len(lines) != 4 || lines[0]["isSidechain"] != true || lines[0]["agentId"] != "agent_1" || lines[0]["parentUuid"] != nil {
		t.Fatalf("subagent: %v", lines[0])
	}
}

// TestDerivedUUIDsAreStable: without NewUUID a line's uuid comes from its
// session, agent and sequence number, so rendering a log again gives the
// same file, and different lines get different uuids.
func TestDerivedUUIDsAreStable(t *testing.T) {
	a, b := render(Format{}, testFile, conversation...), render(Format{}, testFile, conversation...)
	if string(a) != string(b) {
		t.Fatalf("two renderings differ:\n%s\n%s", a, b)
	}
	seen := map[any]bool{}
	for _, l := range parseLines(t, a) {
		if seen[l["uuid"]] {
			t.Fatalf("uuid %v repeated", l["uuid"])
		}
		seen[l["uuid"]] = true
	}
	other := testFile
	other.AgentID = "agent_1"
	if parseLines(t, render(Format{}, other, conversation...))[0]["uuid"] == parseLines(t, a)[0]["uuid"] {
		t.Fatal("a subagent's first line has the session's first uuid")
	}
}

// TestRalphStyleReader reads the last assistant text the way the
// ralph-wiggum stop hook does (grep the assistant lines, jq the text).
func TestRalphStyleReader(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed")
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, render(testFormat(), testFile, conversation...), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sh", "-c", `grep '"role":"assistant"' "$1" | tail -1 | jq -r '.message.content | map(select(.type == "text")) | map(.text) | join("\n")'`, "sh", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) != "Fixed." {
		t.Fatalf("got %q", out)
	}
}

func parseLines(t *testing.T, data []byte) []map[string]any {
	t.Helper()
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
