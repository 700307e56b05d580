package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/sessionlog"
)

var update = flag.Bool("update", false, "rewrite golden files")

// binary is the cordis binary built once for the subprocess tests.
var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "cordis-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "cordis")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building cordis:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestSchemaGolden(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"schema"}, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "schema.golden.json")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, out.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/cordis -update)", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("cordis schema differs from %s; run go test ./cmd/cordis -update and review the diff", golden)
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
}

func TestCLIErrorsAreOneLineAndNonZero(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.yml")
	os.WriteFile(typo, []byte("- id: llm\n  name: llm/antropic\n"), 0o644)
	field := filepath.Join(dir, "field.yml")
	os.WriteFile(field, []byte("- id: llm\n  name: llm/anthropic\n  config: {model: m, modle: x}\n"), 0o644)
	tests := []struct {
		name  string
		args  []string
		want  string
		stdin string
	}{
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`, ""},
		// A broken configuration no longer ends `cordis acp` (the editor
		// is told in session/new: TestBrokenConfigAnswersInitialize), but
		// it still ends the commands that need it.
		{"plugin typo", []string{"login", "--config", typo}, `unknown plugin "llm/antropic" (did you mean "llm/anthropic"?`, ""},
		{"field typo", []string{"login", "--config", field}, `unknown field "modle"`, ""},
		{"bad flag", []string{"acp", "--frob"}, "frob", ""},
		{"bad log level", []string{"acp", "--log-level", "loud"}, "--log-level", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binary, tt.args...)
			cmd.Env = isolatedEnv(t, "")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.Stdin = strings.NewReader(tt.stdin)
			err := cmd.Run()
			if err == nil {
				t.Fatal("exit status 0")
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tt.want) {
				t.Fatalf("stderr = %q, want one line containing %q", stderr.String(), tt.want)
			}
			if stdout.Len() != 0 {
				t.Fatalf("stdout = %q, want nothing", stdout.String())
			}
		})
	}
}

// isolatedEnv is an environment with no user config or key of the
// developer's, pointing the embedded default at baseURL.
func isolatedEnv(t *testing.T, baseURL string) []string {
	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	if baseURL != "" {
		env = append(env, "ANTHROPIC_BASE_URL="+baseURL, "ANTHROPIC_API_KEY=test-key")
	}
	return env
}

// fakeModel answers every request with the next scripted SSE body; an
// exhausted script stalls until the client goes away (for kill tests).
type fakeModel struct {
	srv      *httptest.Server
	mu       sync.Mutex
	bodies   []string
	requests []string
}

func newFakeModel(t testing.TB, bodies ...string) *fakeModel {
	f := &fakeModel{bodies: bodies}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.requests = append(f.requests, string(data))
		var body string
		if len(f.bodies) > 0 {
			body, f.bodies = f.bodies[0], f.bodies[1:]
		}
		f.mu.Unlock()
		if body == "" {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeModel) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

func sse(events ...string) string { return strings.Join(events, "") }

func ev(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func textReply(text string) string {
	q, _ := json.Marshal(text)
	return sse(
		ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(q)+`}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}`),
		ev("message_stop", `{"type":"message_stop"}`),
	)
}

func toolReply(id, name, input string) string {
	q, _ := json.Marshal(input)
	return sse(
		ev("message_start", `{"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":{}}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+string(q)+`}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`),
		ev("message_stop", `{"type":"message_stop"}`),
	)
}

func startAgent(t *testing.T, model *fakeModel, stateDir, workDir string, args ...string) (*acptest.Editor, *exec.Cmd) {
	cmd := exec.Command(binary, append([]string{"acp", "--state-dir", stateDir, "--log-level", "debug"}, args...)...)
	cmd.Env = isolatedEnv(t, model.srv.URL)
	cmd.Dir = workDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent stderr:\n%s", stderr.String())
		}
	})
	return acptest.StartProcess(t, cmd), cmd
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestBinaryServesACPWithEmbeddedDefault(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t, textReply("Hello from cordis."))
	work := t.TempDir()
	e, _ := startAgent(t, model, t.TempDir(), work)
	init := e.Initialize(ctx, acp.ClientCapabilities{})
	if init.ProtocolVersion != 1 || init.AgentInfo == nil || init.AgentInfo.Name != "cordis" || !init.AgentCapabilities.LoadSession {
		t.Fatalf("initialize = %+v", init)
	}
	sess := e.NewSession(ctx, work)
	if sess.SessionID == "" || len(sess.ConfigOptions) != 2 {
		t.Fatalf("session/new = %+v", sess)
	}
	stop, err := e.Prompt(ctx, sess.SessionID, "hello")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	var text strings.Builder
	kinds := []string{}
	for _, u := range e.Updates(sess.SessionID) {
		kinds = append(kinds, u.UpdateKind())
		if c, ok := u.(*acp.AgentMessageChunk); ok {
			text.WriteString(c.Content.Text)
		}
	}
	if text.String() != "Hello from cordis." {
		t.Fatalf("text = %q (updates %v)", text.String(), kinds)
	}
	if kinds[0] != "available_commands_update" || kinds[1] != "config_option_update" {
		t.Fatalf("first updates = %v", kinds)
	}
}

func TestBinaryAnswersBadInputAndKeepsServing(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t)
	e, _ := startAgent(t, model, t.TempDir(), t.TempDir())
	e.Initialize(ctx, acp.ClientCapabilities{})
	e.WriteRaw("garbage {")
	e.WriteRaw(`{"jsonrpc":"2.0","id":"z","method":"session/prompt","params":{"sessionId":"sess_nope","prompt":[{"type":"text","text":"x"}]}}`)
	sess := e.NewSession(ctx, t.TempDir())
	if sess.SessionID == "" {
		t.Fatal("no session")
	}
	var parse, notFound bool
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !(parse && notFound) {
		for _, f := range e.Frames() {
			s := string(f)
			parse = parse || strings.Contains(s, `"code":-32700`)
			notFound = notFound || (strings.Contains(s, `"id":"z"`) && strings.Contains(s, `"code":-32002`))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !parse || !notFound {
		t.Fatalf("parse error answered: %v, unknown session answered -32002: %v", parse, notFound)
	}
}

// A session survives kill -9 in the middle of a turn: what was logged
// before the kill is replayed by session/load, and the conversation goes on.
func TestLoadAfterKillMidTurn(t *testing.T) {
	ctx := testCtx(t)
	state, work := t.TempDir(), t.TempDir()
	marker := filepath.Join(work, "started")
	model := newFakeModel(t,
		toolReply("toolu_1", "Bash", `{"command":"echo $$ > `+marker+`; sleep 60"}`),
		"", // the follow-up request would stall: the agent is killed first
	)
	// Bypass mode, from a config named on the command line.
	configFile := filepath.Join(t.TempDir(), "cordis.yml")
	os.WriteFile(configFile, []byte("- id: agent\n  name: agent\n  config: {defaultMode: bypassPermissions}\n- id: llm\n  name: llm/anthropic\n  config: {model: claude-sonnet-4-5}\n"), 0o644)
	e1, _ := startAgent(t, model, state, work, "--config", configFile)
	e1.Initialize(ctx, acp.ClientCapabilities{})
	sid := e1.NewSession(ctx, work).SessionID
	go e1.Prompt(ctx, sid, "run the long command")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if data, err := os.ReadFile(marker); err == nil && len(bytes.TrimSpace(data)) > 0 {
			// The Bash tool's process group outlives a kill -9 of the agent.
			var pgid int
			fmt.Sscan(string(data), &pgid)
			t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the Bash command never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := e1.Kill(); err != nil {
		t.Fatal(err)
	}

	model2 := newFakeModel(t, textReply("Continuing after the crash."))
	e2, _ := startAgent(t, model2, state, work, "--config", configFile)
	e2.Initialize(ctx, acp.ClientCapabilities{})
	var loaded json.RawMessage
	if err := e2.Call(ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: work, MCPServers: []acp.MCPServer{}}, &loaded); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	var user, toolCall bool
	for _, u := range e2.Updates(sid) {
		switch u := u.(type) {
		case *acp.UserMessageChunk:
			user = user || u.Content.Text == "run the long command"
		case *acp.ToolCall:
			toolCall = toolCall || u.ToolCallID == "toolu_1"
		}
	}
	if !user || !toolCall {
		t.Fatalf("replay lacks the prompt (%v) or the tool call (%v): %v", user, toolCall, e2.Updates(sid))
	}
	// The interrupted call shows failed, with the reason, and the log
	// says so for every later load.
	if !interruptedShown(e2.Updates(sid), "toolu_1") {
		t.Fatalf("the interrupted call is not shown failed: %v", e2.Updates(sid))
	}
	events, _, _ := sessionlog.Read(sessionlog.Path(state, sid))
	logged := false
	for _, ev := range events {
		logged = logged || (ev.Type == sessionlog.TypeToolResult && strings.Contains(string(ev.Data), "toolu_1") && strings.Contains(string(ev.Data), "interrupted"))
	}
	if !logged {
		t.Fatal("the repair of the interrupted call is not in the log")
	}
	stop, err := e2.Prompt(ctx, sid, "are you there?")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt after load = %q, %v", stop, err)
	}
	reqs := model2.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0], "run the long command") || !strings.Contains(reqs[0], "toolu_1") || !strings.Contains(reqs[0], "interrupted") {
		t.Fatalf("the request after load does not continue the conversation: %v", reqs)
	}
}

// The real binary: session/cancel written right behind session/prompt
// always yields `cancelled`, 100 times out of 100.
func TestBinaryPromptThenCancel(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t) // every request stalls until cancelled
	work := t.TempDir()
	e, _ := startAgent(t, model, t.TempDir(), work)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	for i := range 100 {
		id := fmt.Sprintf("pc%d", i)
		prompt := `{"jsonrpc":"2.0","id":"` + id + `","method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"x"}]}}`
		cancel := `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sid + `"}}`
		if err := e.WriteRaw(prompt + "\n" + cancel); err != nil {
			t.Fatal(err)
		}
		var stop string
		deadline := time.Now().Add(10 * time.Second)
		for stop == "" {
			for _, f := range e.Frames() {
				var m struct {
					ID     string `json:"id"`
					Result struct {
						StopReason string `json:"stopReason"`
					} `json:"result"`
					Error json.RawMessage `json:"error"`
				}
				if json.Unmarshal(f, &m) == nil && m.ID == id {
					stop = m.Result.StopReason + string(m.Error)
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %d: no answer to the prompt", i)
			}
			time.Sleep(2 * time.Millisecond)
		}
		if stop != "cancelled" {
			t.Fatalf("run %d: prompt answered %q, want cancelled", i, stop)
		}
	}
}

// TestPluginConfigTypes: every plugin's config type decodes as the config
// package requires (Register leaves this to Check, to keep start-up short).
func TestPluginConfigTypes(t *testing.T) {
	if err := newRegistry().Check(); err != nil {
		t.Fatal(err)
	}
}

// interruptedShown reports whether updates show call failed as
// interrupted.
func interruptedShown(updates []acp.SessionUpdate, call string) bool {
	for _, u := range updates {
		if c, ok := u.(*acp.ToolCallUpdate); ok && c.ToolCallID == call && c.Status == acp.ToolStatusFailed {
			data, _ := json.Marshal(c.Content)
			if strings.Contains(string(data), "interrupted") {
				return true
			}
		}
	}
	return false
}
