package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/bridge/claude/transcript"
	"github.com/cordis-agent/cordis/bridge/codex/rollout"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/sessionlog"
)

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// sessionEvents reads a whole session log.
func sessionEvents(t *testing.T, path string) []sessionlog.Event {
	t.Helper()
	events, _, err := sessionlog.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// copyInputAndTranscript is a hook command that saves its stdin to
// dir/name.json and the file its transcript_path names, as it is while
// the hook runs, to dir/name.transcript.
func copyInputAndTranscript(dir, name string) string {
	in := filepath.Join(dir, name+".json")
	return `cat > '` + in + `'; p=$(sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p' '` + in + `'); cp "$p" '` + filepath.Join(dir, name+".transcript") + `'`
}

// rolloutLines parses a rollout file into its lines.
func rolloutLines(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("rollout line %d is not JSON: %v\n%s", i+1, err, l)
		}
		out = append(out, v)
	}
	return out
}

// payloads returns the payloads of the lines of a type (and payload.type,
// when sub is set).
func payloads(lines []map[string]any, typ, sub string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		p, _ := l["payload"].(map[string]any)
		if l["type"] == typ && (sub == "" || p["type"] == sub) {
			out = append(out, p)
		}
	}
	return out
}

// TestCodexHooksSeeARollout: a Codex hook's transcript_path is the
// session's Codex rollout, holding the conversation and a token_count per
// model response with the session's cumulative usage; its SubagentStop
// agent_transcript_path is the subagent's rollout. A Claude hook in the
// same run still gets the Claude-shaped transcript.
func TestCodexHooksSeeARollout(t *testing.T) {
	dir := t.TempDir()
	p := bothBridges(t, dir, []string{"Stop", "SubagentStop"}, func(dialect, event string) string {
		switch {
		case event == "Stop":
			return copyInputAndTranscript(dir, dialect+"-stop")
		case dialect == "codex":
			return `cat > '` + filepath.Join(dir, "codex-substop.json") + `'`
		}
		return "true"
	})
	h := newFixedHarness(t, p, loop.ModeBypass,
		answer(100, "tool_use", looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": "echo echoed-output"}),
			looptest.ToolUse("toolu_task", "Task", map[string]any{"description": "look", "prompt": "Look around", "subagent_type": "explorer"})),
		reply("child found it"),
		reply("all done"))
	sid := h.NewSession()
	h.Prompt(sid, "the question")
	logPath := sessionlog.Path(h.StateDir, sid)

	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("hook output: %v", err)
		}
		return data
	}
	var codexStop, claudeStop, codexSubStop struct {
		TranscriptPath      string `json:"transcript_path"`
		AgentTranscriptPath string `json:"agent_transcript_path"`
	}
	for name, v := range map[string]any{"codex-stop.json": &codexStop, "claude-stop.json": &claudeStop, "codex-substop.json": &codexSubStop} {
		if err := json.Unmarshal(read(name), v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if want := rollout.Path(logPath); codexStop.TranscriptPath != want {
		t.Errorf("Codex Stop transcript_path = %q, want %q", codexStop.TranscriptPath, want)
	}
	if want := transcript.Path(logPath); claudeStop.TranscriptPath != want {
		t.Errorf("Claude Stop transcript_path = %q, want %q", claudeStop.TranscriptPath, want)
	}
	if cc := string(read("claude-stop.transcript")); !strings.Contains(cc, `"type":"assistant"`) || !strings.Contains(cc, "all done") || strings.Contains(cc, "token_count") {
		t.Errorf("Claude hook's transcript is not Claude-shaped:\n%s", cc)
	}

	// The rollout as the Codex Stop hook saw it.
	lines := rolloutLines(t, read("codex-stop.transcript"))
	if meta := lines[0]; meta["type"] != "session_meta" {
		t.Fatalf("first line %v, want session_meta", meta)
	} else if p := meta["payload"].(map[string]any); p["id"] != sid || p["originator"] != "cordis" || p["cwd"] != h.Cwd || p["model_provider"] != "anthropic" {
		t.Errorf("session_meta = %v", p)
	}
	if tc := payloads(lines, "turn_context", ""); len(tc) != 1 || tc[0]["turn_id"] != "turn-1" || tc[0]["model"] != "claude-test" || tc[0]["approval_policy"] != "never" {
		t.Errorf("turn_context = %v", tc)
	}
	text := func(ps []map[string]any, key string) string {
		var out []string
		for _, p := range ps {
			if s, ok := p[key].(string); ok {
				out = append(out, s)
			}
		}
		return strings.Join(out, "|")
	}
	if got := text(payloads(lines, "event_msg", "user_message"), "message"); got != "the question" {
		t.Errorf("user_message events = %q", got)
	}
	if got := text(payloads(lines, "event_msg", "agent_message"), "message"); got != "all done" {
		t.Errorf("agent_message events = %q (the child's text belongs in its own rollout)", got)
	}
	if got := text(payloads(lines, "response_item", "function_call"), "call_id"); got != "toolu_1|toolu_task" {
		t.Errorf("function_call ids = %q", got)
	}
	outputs := payloads(lines, "response_item", "function_call_output")
	if len(outputs) != 2 || outputs[0]["call_id"] != "toolu_1" || !strings.Contains(outputs[0]["output"].(string), "echoed-output") || outputs[1]["output"] != "child found it" {
		t.Errorf("function_call_output = %v", outputs)
	}
	msgs := payloads(lines, "response_item", "message")
	if len(msgs) != 2 || msgs[0]["role"] != "user" || msgs[1]["role"] != "assistant" || !strings.Contains(jsonOf(msgs[1]), `{"text":"all done","type":"output_text"}`) {
		t.Errorf("messages = %v", jsonOf(msgs))
	}

	// One token_count per response of the main agent, cumulative: the last
	// one's total is the sum of the usage the session log recorded.
	var want rollout.Usage
	var responses int
	for _, ev := range sessionEvents(t, logPath) {
		if ev.Type != sessionlog.TypeModelResponse {
			continue
		}
		var r struct{ Usage llm.Usage }
		json.Unmarshal(ev.Data, &r)
		u := rollout.UsageOf(r.Usage)
		want.InputTokens += u.InputTokens
		want.OutputTokens += u.OutputTokens
		want.TotalTokens += u.TotalTokens
		responses++
	}
	counts := payloads(lines, "event_msg", "token_count")
	if len(counts) != 2 || responses != 2 || want.TotalTokens == 0 {
		t.Fatalf("%d token_count lines, %d responses logged (total %d), want 2", len(counts), responses, want.TotalTokens)
	}
	info := counts[1]["info"].(map[string]any)
	total := info["total_token_usage"].(map[string]any)
	if total["total_tokens"] != float64(want.TotalTokens) || total["input_tokens"] != float64(want.InputTokens) || total["output_tokens"] != float64(want.OutputTokens) {
		t.Errorf("total_token_usage = %v, want %+v", total, want)
	}
	if last := info["last_token_usage"].(map[string]any); last["total_tokens"] == total["total_tokens"] {
		t.Errorf("last_token_usage %v equals the total: not cumulative", last)
	}
	if v, ok := counts[1]["rate_limits"]; !ok || v != nil {
		t.Errorf("rate_limits = %v (present %v), want null", v, ok)
	}

	// SubagentStop: the parent's rollout and the child's own.
	agentRollout := rollout.AgentPath(sessionlog.SubagentPath(h.StateDir, sid, "agent-toolu_task"))
	if codexSubStop.TranscriptPath != rollout.Path(logPath) || codexSubStop.AgentTranscriptPath != agentRollout {
		t.Errorf("Codex SubagentStop paths = %q, %q; want %q, %q", codexSubStop.TranscriptPath, codexSubStop.AgentTranscriptPath, rollout.Path(logPath), agentRollout)
	}
	data, err := os.ReadFile(agentRollout)
	if err != nil {
		t.Fatal(err)
	}
	child := rolloutLines(t, data)
	if p := child[0]["payload"].(map[string]any); child[0]["type"] != "session_meta" || p["id"] != "agent-toolu_task" || !strings.Contains(jsonOf(p["source"]), `"parent_thread_id":"`+sid+`"`) {
		t.Errorf("child session_meta = %v", child[0])
	}
	if got := text(payloads(child, "event_msg", "user_message"), "message"); got != "Look around" {
		t.Errorf("child user_message = %q", got)
	}
	if got := text(payloads(child, "event_msg", "agent_message"), "message"); got != "child found it" || len(payloads(child, "event_msg", "token_count")) != 1 {
		t.Errorf("child rollout:\n%s", data)
	}
}

// TestRolloutAfterLoadAndLoss: a reloaded session's rollout goes on with
// one session_meta and its cumulative usage; a rollout lost (or a log
// from before rollouts) is rendered whole from the log at the next hook.
func TestRolloutAfterLoadAndLoss(t *testing.T) {
	dir := t.TempDir()
	p := bothBridges(t, dir, []string{"Stop"}, func(string, string) string { return "true" })
	h := newFixedHarness(t, p, loop.ModeDefault, reply("first answer"), reply("second answer"), reply("third answer"))
	sid := h.NewSession()
	h.Prompt(sid, "first question")
	path := rollout.Path(sessionlog.Path(h.StateDir, sid))
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	load := func() {
		t.Helper()
		if err := h.Editor.Call(h.Ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: h.Cwd, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
			t.Fatal(err)
		}
	}
	beforeTotal := payloads(rolloutLines(t, before), "event_msg", "token_count")[0]["info"].(map[string]any)["total_token_usage"].(map[string]any)["total_tokens"].(float64)

	// Reopened with the file in place: appended to, usage continued.
	load()
	h.Prompt(sid, "second question")
	data, _ := os.ReadFile(path)
	lines := rolloutLines(t, data)
	if n := len(payloads(lines, "session_meta", "")); n != 1 {
		t.Errorf("%d session_meta lines after load, want 1", n)
	}
	counts := payloads(lines, "event_msg", "token_count")
	if len(counts) != 2 {
		t.Fatalf("%d token_count lines, want 2", len(counts))
	}
	info := counts[1]["info"].(map[string]any)
	last := info["last_token_usage"].(map[string]any)["total_tokens"].(float64)
	if total := info["total_token_usage"].(map[string]any)["total_tokens"].(float64); total != beforeTotal+last {
		t.Errorf("total after load = %v, want %v + %v", total, beforeTotal, last)
	}

	// Lost: rendered again from the log at the next hook.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	load()
	h.Prompt(sid, "third question")
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines = rolloutLines(t, data)
	var said []string
	for _, p := range append(payloads(lines, "event_msg", "user_message"), payloads(lines, "event_msg", "agent_message")...) {
		said = append(said, p["message"].(string))
	}
	if lines[0]["type"] != "session_meta" || strings.Join(said, "|") != "first question|second question|third question|first answer|second answer|third answer" {
		t.Errorf("rebuilt rollout:\n%s", data)
	}
}

// TestCompactCountsInTheRollout: the summary call's usage reaches the
// Codex rollout's token totals, as it reaches the session's own.
func TestCompactCountsInTheRollout(t *testing.T) {
	p := bothBridges(t, t.TempDir(), []string{"SessionStart"}, func(string, string) string { return "true" })
	h := newFixedHarness(t, p, loop.ModeDefault, reply("first answer"), reply("SUMMARY"))
	sid := h.NewSession()
	h.Prompt(sid, "first question")
	h.Prompt(sid, "/compact") // SessionStart (compact) runs after it
	data, err := os.ReadFile(rollout.Path(sessionlog.Path(h.StateDir, sid)))
	if err != nil {
		t.Fatal(err)
	}
	var counts []float64
	for _, p := range payloads(rolloutLines(t, data), "event_msg", "token_count") {
		total := p["info"].(map[string]any)["total_token_usage"].(map[string]any)
		counts = append(counts, total["total_tokens"].(float64))
	}
	// Each scripted response costs 107 input and 20 output tokens.
	if len(counts) != 2 || counts[0] != 127 || counts[1] != 254 {
		t.Fatalf("token_count totals = %v, want [127 254] (the turn, then the compaction)", counts)
	}
}

// TestOnlyConfiguredDialectsWrite: a session writes a dialect's rendering
// only when a hook of that dialect runs (a Claude hook here: no rollout),
// and none without hooks.
func TestOnlyConfiguredDialectsWrite(t *testing.T) {
	dir := t.TempDir()
	claudeOnly := bothBridges(t, dir, nil, nil)
	if err := os.WriteFile(filepath.Join(dir, "claude.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		seams      bool
		transcript bool
	}{{"claude hooks", true, true}, {"no hooks", false, false}} {
		t.Run(c.name, func(t *testing.T) {
			var h *looptest.Harness
			if c.seams {
				h = newFixedHarness(t, claudeOnly, loop.ModeDefault, reply("answer"))
			} else {
				h = newFixedHarness(t, nil, loop.ModeDefault, reply("answer"))
			}
			sid := h.NewSession()
			h.Prompt(sid, "question")
			logPath := sessionlog.Path(h.StateDir, sid)
			if _, err := os.Stat(transcript.Path(logPath)); (err == nil) != c.transcript {
				t.Errorf("transcript exists: %v, want %v", err == nil, c.transcript)
			}
			if _, err := os.Stat(rollout.Path(logPath)); err == nil {
				t.Error("a rollout was written without Codex hooks")
			}
		})
	}
}
