package e2e_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/bridge/claude"
	"github.com/cordis-agent/cordis/bridge/codex"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

var update = flag.Bool("update", false, "rewrite testdata/renderings from this run")

// hookFiles writes a Claude hooks file and a Codex hooks.json that run cmd
// on each of events (Claude's Stop also blocks once, so a steering
// message enters the history) and returns a pipeline with both bridges.
func bothBridges(t *testing.T, dir string, events []string, cmd func(dialect, event string) string) hooks.Seams {
	t.Helper()
	claudeCfg, codexCfg := map[string]any{}, map[string]any{}
	for _, ev := range events {
		claudeCfg[ev] = []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": cmd("claude", ev)}}}}
		codexCfg[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd("codex", ev)}}}}
	}
	write := func(name string, cfg map[string]any) string {
		b, _ := json.Marshal(map[string]any{"hooks": cfg})
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p := hooks.NewPipeline()
	claude.New(claude.Config{Path: write("claude.json", claudeCfg)}, claude.Options{Name: "claude-hooks", Version: version}).Register(p)
	codex.New(codex.Config{Path: write("codex.json", codexCfg)}, codex.Options{Name: "codex-hooks", Shell: []string{"sh", "-c"}, Home: "/nonexistent-home",
		Version: version, ModelProvider: func() string { return "anthropic" }}).Register(p)
	return p
}

// version is what cmd/cordis passes the loop and both bridges.
const version = "0.1.0-test"

// renderings are the files hooks read through transcript_path and
// agent_transcript_path, relative to the session's directory in the
// state directory; their places are part of what hooks may rely on.
var renderings = map[string]string{
	"transcript.jsonl":       "transcript.jsonl",
	"rollout.jsonl":          "rollout.transcript.jsonl",
	"agent.transcript.jsonl": "subagents/agent-toolu_task.transcript.jsonl",
	"agent.rollout.jsonl":    "subagents/agent-toolu_task.rollout.transcript.jsonl",
}

// TestRenderingsOfASession runs a session with hooks of both dialects
// (thinking, a tool call, a Task subagent, a Stop hook's steering, a mode
// change, a compaction, a reload) and compares every rendering with
// testdata/renderings, which holds what the writers the loop used to run
// produced for the same session. uuids, the session id and the
// directories are normalized.
func TestRenderingsOfASession(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "blocked-once")
	seams := bothBridges(t, dir, []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SubagentStop", "PreCompact"},
		func(dialect, event string) string {
			save := fmt.Sprintf("cat > '%s'", filepath.Join(dir, dialect+"-"+event+".json"))
			if dialect == "claude" && event == "Stop" {
				return save + fmt.Sprintf(`; if [ ! -f '%[1]s' ]; then touch '%[1]s'; echo '{"decision":"block","reason":"check again"}'; fi`, marker)
			}
			return save
		})
	h := newFixedHarness(t, seams, loop.ModeBypass,
		answer(100, "tool_use", looptest.Thinking("Let me look."), looptest.Text("Running it."),
			looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": "echo echoed-output", "description": "echo"})),
		answer(110, "tool_use", looptest.ToolUse("toolu_task", "Task", map[string]any{"description": "look", "prompt": "Look around", "subagent_type": "explorer"})),
		answer(50, "end_turn", looptest.Text("child found it")),
		answer(120, "end_turn", looptest.Text("all done")),
		answer(130, "end_turn", looptest.Text("really done")),
		answer(140, "end_turn", looptest.Text("second answer")),
		answer(150, "end_turn", looptest.Text("the summary")),
		answer(160, "end_turn", looptest.Text("after compaction answer")),
		answer(170, "end_turn", looptest.Text("after load answer")),
	)
	sid := h.NewSession()
	h.Prompt(sid, "the question")
	call(t, h, acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: sid, ModeID: loop.ModeAcceptEdits})
	h.Prompt(sid, "second question")
	h.Prompt(sid, "/compact")
	h.Prompt(sid, "after compaction")
	call(t, h, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: h.Cwd, MCPServers: []acp.MCPServer{}})
	h.Prompt(sid, "after load")
	h.Model.CheckAllUsed()

	sessionDir := filepath.Join(h.StateDir, "sessions", sid)
	// Hooks were told where the renderings are.
	for _, c := range []struct{ file, field, want string }{
		{"claude-Stop.json", "transcript_path", "transcript.jsonl"},
		{"codex-Stop.json", "transcript_path", "rollout.transcript.jsonl"},
		{"claude-SubagentStop.json", "agent_transcript_path", "subagents/agent-toolu_task.transcript.jsonl"},
		{"codex-SubagentStop.json", "agent_transcript_path", "subagents/agent-toolu_task.rollout.transcript.jsonl"},
	} {
		data, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		var in map[string]any
		if err := json.Unmarshal(data, &in); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if got, want := in[c.field], filepath.Join(sessionDir, c.want); got != want {
			t.Errorf("%s: %s = %v, want %s", c.file, c.field, got, want)
		}
	}
	norm := normalizer{"SESSION": sid, "STATE": h.StateDir, "CWD": h.Cwd}
	for golden, rel := range renderings {
		data, err := os.ReadFile(filepath.Join(sessionDir, rel))
		if err != nil {
			t.Fatal(err)
		}
		got := norm.apply(data)
		path := filepath.Join("testdata", "renderings", golden)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n%s", rel, path, firstDifference(got, want))
		}
	}
}

// normalizer replaces what differs between runs: values by their names,
// and uuids (with the msg_ ids made from them) by their order of first
// appearance.
type normalizer map[string]string

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func (n normalizer) apply(data []byte) []byte {
	s := string(data)
	for name, v := range n {
		s = strings.ReplaceAll(s, v, name)
	}
	seen := map[string]string{}
	for _, u := range uuidRE.FindAllString(s, -1) {
		if _, ok := seen[u]; !ok {
			seen[u] = fmt.Sprintf("00000000-0000-4000-8000-%012d", len(seen)+1)
		}
	}
	for u, p := range seen {
		s = strings.ReplaceAll(s, u, p)
		s = strings.ReplaceAll(s, strings.ReplaceAll(u, "-", ""), strings.ReplaceAll(p, "-", ""))
	}
	return []byte(s)
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, gl, wl)
		}
	}
	return "(equal)"
}
