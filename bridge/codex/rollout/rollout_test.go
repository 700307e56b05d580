package rollout

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/bridge/internal/rendering"
	"github.com/cordis-agent/cordis/llm"
)

var testTime = time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.UTC)

func testFile() rendering.File {
	return rendering.File{SessionID: "sess_1", Cwd: "/src/app", Started: testTime, ContextWindow: 200000}
}

var testFormat = Format{Version: "0.1.0", ModelProvider: func() string { return "anthropic" }}

// testWriter renders entries into a file, as rendering.Set does.
type testWriter struct {
	t    *testing.T
	path string
	r    rendering.Renderer
}

func newTestWriter(t *testing.T, path string, file rendering.File) *testWriter {
	r, head := testFormat.Start(file)
	os.MkdirAll(filepath.Dir(path), 0o700)
	w := &testWriter{t: t, path: path, r: r}
	w.write(head)
	return w
}

func (w *testWriter) write(b []byte) {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		w.t.Fatal(err)
	}
	f.Write(b)
	f.Close()
}

func (w *testWriter) render(e rendering.Entry) {
	e.Time = testTime
	w.write(w.r.Render(e))
}

func (w *testWriter) TurnContext(t rendering.Turn) { w.render(rendering.Entry{Turn: &t}) }
func (w *testWriter) TokenCount(u llm.Usage)       { w.render(rendering.Entry{Usage: &u}) }
func (w *testWriter) Append(msgs ...llm.Message) {
	for _, m := range msgs {
		w.render(rendering.Entry{Message: &m})
	}
}

var (
	prompt = llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		llm.Text("<system-reminder>\nsession context\n</system-reminder>"),
		llm.Text("fix the test"),
	}}
	first = llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		{Type: llm.BlockThinking, Thinking: "hmm", Signature: "sig"},
		llm.Text("Running it."),
		{Type: llm.BlockToolUse, ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"go test && echo <ok>"}`)},
	}}
	result = llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "toolu_1", Content: []llm.Block{llm.Text("FAIL")}, IsError: true}}}
	second = llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("Fixed.")}}

	usage1 = llm.Usage{InputTokens: 100, OutputTokens: 20, CacheCreationInputTokens: 1000, CacheReadInputTokens: 0}
	usage2 = llm.Usage{InputTokens: 10, OutputTokens: 5, CacheCreationInputTokens: 30, CacheReadInputTokens: 1100}
)

// writeConversation writes one turn the way the log tells it: turn
// context, prompt, a response with a tool call, its result, a final
// response.
func writeConversation(w *testWriter) {
	w.TurnContext(rendering.Turn{ID: "turn-1", Model: "claude-sonnet-4-5", Mode: "default"})
	w.Append(prompt, first)
	w.TokenCount(usage1)
	w.Append(result, second)
	w.TokenCount(usage2)
}

func TestFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	writeConversation(newTestWriter(t, path, testFile()))
	data, _ := os.ReadFile(path)
	const ts = `{"timestamp":"2025-01-02T03:04:05.123Z",`
	want := strings.Join([]string{
		ts + `"type":"session_meta","payload":{"id":"sess_1","timestamp":"2025-01-02T03:04:05.123Z","cwd":"/src/app","originator":"cordis","cli_version":"0.1.0","source":"vscode","model_provider":"anthropic"}}`,
		ts + `"type":"turn_context","payload":{"turn_id":"turn-1","cwd":"/src/app","approval_policy":"untrusted","sandbox_policy":{"type":"danger-full-access"},"model":"claude-sonnet-4-5","summary":"auto"}}`,
		ts + `"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<system-reminder>\nsession context\n</system-reminder>"},{"type":"input_text","text":"fix the test"}]}}`,
		ts + `"type":"event_msg","payload":{"type":"user_message","message":"fix the test"}}`,
		ts + `"type":"response_item","payload":{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"hmm"}]}}`,
		ts + `"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Running it."}]}}`,
		ts + `"type":"response_item","payload":{"type":"function_call","name":"Bash","arguments":"{\"command\":\"go test && echo <ok>\"}","call_id":"toolu_1"}}`,
		ts + `"type":"event_msg","payload":{"type":"agent_message","message":"Running it."}}`,
		ts + `"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1100,"cached_input_tokens":0,"output_tokens":20,"reasoning_output_tokens":0,"total_tokens":1120},"last_token_usage":{"input_tokens":1100,"cached_input_tokens":0,"output_tokens":20,"reasoning_output_tokens":0,"total_tokens":1120},"model_context_window":200000},"rate_limits":null}}`,
		ts + `"type":"response_item","payload":{"type":"function_call_output","call_id":"toolu_1","output":"FAIL"}}`,
		ts + `"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Fixed."}]}}`,
		ts + `"type":"event_msg","payload":{"type":"agent_message","message":"Fixed."}}`,
		ts + `"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":2240,"cached_input_tokens":1100,"output_tokens":25,"reasoning_output_tokens":0,"total_tokens":2265},"last_token_usage":{"input_tokens":1140,"cached_input_tokens":1100,"output_tokens":5,"reasoning_output_tokens":0,"total_tokens":1145},"model_context_window":200000},"rate_limits":null}}`,
	}, "\n") + "\n"
	if string(data) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", data, want)
	}
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var v struct {
			Timestamp string          `json:"timestamp"`
			Type      string          `json:"type"`
			Payload   json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.Timestamp == "" || v.Type == "" || len(v.Payload) == 0 {
			t.Errorf("line %d is not a rollout line (%v): %s", i+1, err, l)
		}
		if _, err := time.Parse(time.RFC3339, v.Timestamp); err != nil {
			t.Errorf("line %d: timestamp: %v", i+1, err)
		}
	}
}

// hookUsage is what log_hook.py (kkroekerMTB/mtb-codex-hooks) reports as
// token_usage: it reads every line as JSON, skips lines that are not JSON
// or have no object payload, remembers the last reasoning effort seen and
// the last line whose payload.type is token_count, then reports that
// line's info and rate_limits.
type hookUsage struct {
	Cumulative, LatestCall map[string]any
	ContextWindow          any
	ReasoningEffort        any
	RateLimits             any
	Timestamp              any
	found                  bool
}

func readLikeLogHook(t *testing.T, path string) hookUsage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		last          map[string]any
		current, kept any
	)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var event map[string]any
		if json.Unmarshal(sc.Bytes(), &event) != nil {
			continue
		}
		payload, ok := event["payload"].(map[string]any)
		if !ok {
			continue
		}
		if e := effortOf(payload); e != "" {
			current = e
		}
		if payload["type"] == "token_count" {
			last, kept = event, current
		}
	}
	if last == nil {
		return hookUsage{}
	}
	payload := last["payload"].(map[string]any)
	info, _ := payload["info"].(map[string]any)
	u := hookUsage{Timestamp: last["timestamp"], ReasoningEffort: kept, RateLimits: payload["rate_limits"], found: true}
	if info != nil {
		u.Cumulative, _ = info["total_token_usage"].(map[string]any)
		u.LatestCall, _ = info["last_token_usage"].(map[string]any)
		u.ContextWindow = info["model_context_window"]
	}
	return u
}

func effortOf(p map[string]any) string {
	sub := func(m map[string]any, k string) map[string]any {
		v, _ := m[k].(map[string]any)
		return v
	}
	for _, v := range []any{p["reasoning_effort"], sub(p, "thread_settings")["reasoning_effort"], sub(sub(p, "collaboration_mode"), "settings")["reasoning_effort"]} {
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	return ""
}

func TestReadLikeLogHook(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	writeConversation(newTestWriter(t, path, testFile()))
	got := readLikeLogHook(t, path)
	if !got.found {
		t.Fatal("no token_count line")
	}
	num := func(m map[string]any, k string) float64 { v, _ := m[k].(float64); return v }
	if num(got.Cumulative, "total_tokens") != 2265 || num(got.Cumulative, "input_tokens") != 2240 || num(got.Cumulative, "cached_input_tokens") != 1100 || num(got.Cumulative, "output_tokens") != 25 {
		t.Errorf("cumulative = %v", got.Cumulative)
	}
	if num(got.LatestCall, "total_tokens") != 1145 || num(got.LatestCall, "output_tokens") != 5 {
		t.Errorf("latest call = %v", got.LatestCall)
	}
	if got.ContextWindow != float64(200000) || got.RateLimits != nil || got.Timestamp != "2025-01-02T03:04:05.123Z" {
		t.Errorf("window %v, rate limits %v, timestamp %v", got.ContextWindow, got.RateLimits, got.Timestamp)
	}
	if got.ReasoningEffort != nil {
		t.Errorf("effort = %v, want none (cordis writes none)", got.ReasoningEffort)
	}
}

func TestSubagentAndPolicies(t *testing.T) {
	dir := t.TempDir()
	agentLog := filepath.Join(dir, "sessions", "sess_1", "subagents", "agent-toolu_1.jsonl")
	if got, want := testFormat.Path(agentLog, true), filepath.Join(dir, "sessions", "sess_1", "subagents", "agent-toolu_1.rollout.transcript.jsonl"); got != want {
		t.Errorf("agent Path = %s, want %s", got, want)
	}
	if got, want := testFormat.Path(filepath.Join(dir, "sessions", "sess_1.jsonl"), false), filepath.Join(dir, "sessions", "sess_1", "rollout.transcript.jsonl"); got != want {
		t.Errorf("Path = %s, want %s", got, want)
	}
	file := testFile()
	file.AgentID, file.AgentType, file.Depth, file.ContextWindow = "agent-toolu_1", "explore", 1, 0
	w := newTestWriter(t, testFormat.Path(agentLog, true), file)
	for _, mode := range []string{"plan", "bypassPermissions", "acceptEdits", "weird"} {
		w.TurnContext(rendering.Turn{Model: "m", Mode: mode})
	}
	w.TokenCount(llm.Usage{InputTokens: 1})
	data, _ := os.ReadFile(w.path)
	for _, want := range []string{
		`"payload":{"id":"agent-toolu_1","timestamp":"2025-01-02T03:04:05.123Z","cwd":"/src/app","originator":"cordis","cli_version":"0.1.0","source":{"subagent":{"thread_spawn":{"parent_thread_id":"sess_1","depth":1,"agent_role":"explore"}}},"model_provider":"anthropic"}`,
		`{"cwd":"/src/app","approval_policy":"never","sandbox_policy":{"type":"read-only"},"model":"m","summary":"auto"}`,
		`{"cwd":"/src/app","approval_policy":"never","sandbox_policy":{"type":"danger-full-access"},"model":"m","summary":"auto"}`,
		`{"cwd":"/src/app","sandbox_policy":{"type":"danger-full-access"},"model":"m","summary":"auto"}`,
		`{"cwd":"/src/app","model":"m","summary":"auto"}`,
		`"model_context_window":null`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("missing %s in:\n%s", want, data)
		}
	}
}

func TestUserMessageEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w := newTestWriter(t, path, testFile())
	w.Append(
		llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("<system-reminder>\nStop hook feedback:\nagain\n</system-reminder>")}},
		llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("look"), {Type: llm.BlockImage, MediaType: "image/png", Data: "AAAA"}}},
		llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockRedactedThinking, Data: "x"}, {Type: llm.BlockToolUse, ID: "t2", Name: "Read"}}},
	)
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")[1:]
	want := []string{
		`"payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<system-reminder>\nStop hook feedback:\nagain\n</system-reminder>"}]}}`,
		`"payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"look"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]}}`,
		`"payload":{"type":"user_message","message":"look","images":["data:image/png;base64,AAAA"]}}`,
		`"payload":{"type":"function_call","name":"Read","arguments":"{}","call_id":"t2"}}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), data)
	}
	for i := range want {
		if !strings.HasSuffix(lines[i], want[i]) {
			t.Errorf("line %d = %s\nwant suffix %s", i+1, lines[i], want[i])
		}
	}
}
