package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
)

// The tests here are issue 20's items through the built binary, driven by
// an editor that behaves like Zed (acptest.ServeLikeZed): Zed's
// initialize capabilities, fs and terminals served for real, and any
// update that names a released terminal failing the test.

// zedModel is a model server that answers each request with the next
// scripted step; a step may hold its answer until a channel closes, or
// answer with an HTTP error.
type zedModel struct {
	srv      *httptest.Server
	mu       sync.Mutex
	steps    []zedStep
	requests []string
}

type zedStep struct {
	status int    // 0: 200 with body as SSE
	body   string // SSE, or the error body
	header map[string]string
	hold   chan struct{} // answered once closed
}

func newZedModel(t *testing.T, steps ...zedStep) *zedModel {
	m := &zedModel{steps: steps}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.requests = append(m.requests, string(data))
		var step zedStep
		if len(m.steps) > 0 {
			step, m.steps = m.steps[0], m.steps[1:]
		}
		m.mu.Unlock()
		if step.body == "" {
			<-r.Context().Done()
			return
		}
		if step.hold != nil {
			select {
			case <-step.hold:
			case <-r.Context().Done():
				return
			}
		}
		for k, v := range step.header {
			w.Header().Set(k, v)
		}
		if step.status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(step.status)
			io.WriteString(w, step.body)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, step.body)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *zedModel) Requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.requests...)
}

func replies(bodies ...string) []zedStep {
	steps := make([]zedStep, len(bodies))
	for i, b := range bodies {
		steps[i] = zedStep{body: b}
	}
	return steps
}

// zedAgent is one cordis process serving a Zed-like editor; agents of one
// test share HOME, the state dir and the project, as an editor restarting
// cordis would.
type zedAgent struct {
	t                *testing.T
	env              []string
	state, work      string
	args             []string
	mu               sync.Mutex
	asked            []*acp.RequestPermissionRequest
	stderr           *syncBuffer
	onRequestWrapper func(next func(context.Context, string, json.RawMessage) (any, error)) func(context.Context, string, json.RawMessage) (any, error)
}

func newZedAgent(t *testing.T, modelURL string, args ...string) *zedAgent {
	return &zedAgent{t: t, env: isolatedEnv(t, modelURL), state: t.TempDir(), work: t.TempDir(), args: args}
}

// start runs cordis and performs Zed's initialize. Permission requests
// are recorded and answered as a user choosing "acceptEdits" where it is
// offered (Ready to code?), else "allow once".
func (a *zedAgent) start() *acptest.Editor {
	cmd := exec.Command(binary, append([]string{"acp", "--state-dir", a.state, "--log-level", "debug"}, a.args...)...)
	cmd.Env, cmd.Dir = a.env, a.work
	a.stderr = &syncBuffer{}
	cmd.Stderr = a.stderr
	stderr := a.stderr
	a.t.Cleanup(func() {
		if a.t.Failed() {
			a.t.Logf("agent stderr:\n%s", stderr.String())
		}
	})
	e := acptest.StartProcess(a.t, cmd)
	acptest.ServeLikeZed(e, func(_ context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		a.mu.Lock()
		a.asked = append(a.asked, req)
		a.mu.Unlock()
		for _, o := range req.Options {
			if o.OptionID == "acceptEdits" {
				return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: o.OptionID}}, nil
			}
		}
		resp, _ := acptest.SelectKind(req, acp.PermAllowOnce)
		return resp, nil
	})
	if a.onRequestWrapper != nil {
		e.OnRequest = a.onRequestWrapper(e.OnRequest)
	}
	e.Initialize(testCtx(a.t), acptest.ZedCapabilities())
	return e
}

func (a *zedAgent) permissions() []*acp.RequestPermissionRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*acp.RequestPermissionRequest(nil), a.asked...)
}

func (a *zedAgent) load(e *acptest.Editor, sid string) {
	a.t.Helper()
	var loaded json.RawMessage
	if err := e.Call(testCtx(a.t), acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: a.work, MCPServers: []acp.MCPServer{}}, &loaded); err != nil {
		a.t.Fatal(err)
	}
}

func setMode(t *testing.T, e *acptest.Editor, sid, mode string) {
	t.Helper()
	var out json.RawMessage
	if err := e.Call(testCtx(t), acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: sid, ModeID: mode}, &out); err != nil {
		t.Fatal(err)
	}
}

// cardsOf are the tool_call and tool_call_update updates of one call.
func cardsOf(updates []acp.SessionUpdate, id string) (calls []*acp.ToolCall, ups []*acp.ToolCallUpdate) {
	for _, u := range updates {
		switch u := u.(type) {
		case *acp.ToolCall:
			if u.ToolCallID == id {
				calls = append(calls, u)
			}
		case *acp.ToolCallUpdate:
			if u.ToolCallID == id {
				ups = append(ups, u)
			}
		}
	}
	return calls, ups
}

// toolResultIn is the text of the tool_result for id in a model request
// body, and whether it is an error.
func toolResultIn(t *testing.T, body, id string) (string, bool) {
	t.Helper()
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatalf("model request: %v", err)
	}
	for _, m := range req.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_result" || b.ToolUseID != id {
				continue
			}
			var s string
			if json.Unmarshal(b.Content, &s) == nil {
				return s, b.IsError
			}
			var parts []struct {
				Text string `json:"text"`
			}
			json.Unmarshal(b.Content, &parts)
			var out strings.Builder
			for _, p := range parts {
				out.WriteString(p.Text)
			}
			return out.String(), b.IsError
		}
	}
	t.Fatalf("no tool_result for %s in the request", id)
	return "", false
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Items 1, 2 and 8 (terminal label), and 9's new-file check: a Bash
// approval is titled with the command and shows it whole; Edit and Write
// approvals carry the diff (oldText null for a new file); the command runs
// in a Zed terminal whose label is set to the command after it is
// embedded, and no update names the terminal after terminal/release (the
// editor fails the test otherwise); a new file is not first asked of the
// editor; and a reload in a new process replays Bash's output as text.
func TestZedApprovalsTerminalsAndReload(t *testing.T) {
	ctx := testCtx(t)
	model := newZedModel(t)
	a := newZedAgent(t, model.srv.URL)
	edited := filepath.Join(a.work, "a.txt")
	created := filepath.Join(a.work, "new.txt")
	os.WriteFile(edited, []byte("one\ntwo\n"), 0o644)
	// Not echo, which is read-only and runs without asking: expr prints
	// its one argument too.
	const command = "expr hello-from-bash"
	model.steps = replies(
		toolReply("toolu_b", "Bash", `{"command":"`+command+`","description":"Say hello"}`),
		toolReply("toolu_e", "Edit", `{"file_path":`+quoteJSON(edited)+`,"old_string":"two","new_string":"TWO"}`),
		toolReply("toolu_w", "Write", `{"file_path":`+quoteJSON(created)+`,"content":"fresh\n"}`),
		textReply("done"))
	e := a.start()
	sid := e.NewSession(ctx, a.work).SessionID
	if stop, err := e.Prompt(ctx, sid, "go"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	asked := a.permissions()
	if len(asked) != 3 {
		t.Fatalf("%d permission requests, want 3: %s", len(asked), toJSON(asked))
	}
	bash := asked[0].ToolCall
	if !strings.Contains(bash.Title, command) || len(bash.Content) == 0 || !strings.Contains(bash.Content[0].Content.Text, command) {
		t.Errorf("Bash approval = %s, want the command as title and content", toJSON(bash))
	}
	edit := asked[1].ToolCall
	if len(edit.Content) != 1 || edit.Content[0].Type != "diff" || edit.Content[0].Path != edited || edit.Content[0].OldText == nil ||
		!strings.Contains(*edit.Content[0].NewText, "TWO") || !strings.Contains(*edit.Content[0].OldText, "two") {
		t.Errorf("Edit approval = %s, want the diff", toJSON(edit))
	}
	write := asked[2].ToolCall
	if len(write.Content) != 1 || write.Content[0].Type != "diff" || write.Content[0].OldText != nil || *write.Content[0].NewText != "fresh\n" {
		t.Errorf("Write approval = %s, want a diff with oldText null", toJSON(write))
	}
	var created0 bool
	for _, c := range e.Calls() {
		var r acp.ReadTextFileRequest
		if c.Method == acp.MethodFSReadTextFile && json.Unmarshal(c.Params, &r) == nil && r.Path == created {
			t.Errorf("the new file was asked of the editor before it existed: %s", c.Params)
		}
		created0 = created0 || c.Method == "terminal/create"
	}
	if !created0 {
		t.Fatal("Bash did not run in a Zed terminal")
	}
	_, ups := cardsOf(e.Updates(sid), "toolu_b")
	embedded, labelled := false, false
	for _, u := range ups {
		for _, c := range u.Content {
			embedded = embedded || c.Type == "terminal"
		}
		labelled = labelled || (embedded && u.Title != "" && strings.Contains(u.Title, command))
	}
	if !embedded || !labelled {
		t.Errorf("terminal embedded %v, then labelled with the command %v: %s", embedded, labelled, toJSON(ups))
	}
	e.Kill()

	e = a.start()
	a.load(e, sid)
	_, ups = cardsOf(e.Updates(sid), "toolu_b")
	if len(ups) == 0 {
		t.Fatal("the reload replayed no Bash result")
	}
	last := ups[len(ups)-1]
	if len(last.Content) == 0 || last.Content[0].Type != "content" || !strings.Contains(last.Content[0].Content.Text, "hello-from-bash") {
		t.Errorf("reloaded Bash card = %s, want its output as text", toJSON(last))
	}
}

// Item 4: in plan mode the model gets ExitPlanMode; the user is asked
// with the plan shown ("Ready to code?"), allowing it switches the mode
// (current_mode_update and config_option_update), and the same turn goes
// on to write without asking again.
func TestZedPlanModeExit(t *testing.T) {
	ctx := testCtx(t)
	model := newZedModel(t)
	a := newZedAgent(t, model.srv.URL)
	target := filepath.Join(a.work, "notes.txt")
	model.steps = replies(
		toolReply("toolu_plan", "ExitPlanMode", `{"plan":"1. Write notes.txt"}`),
		toolReply("toolu_w", "Write", `{"file_path":`+quoteJSON(target)+`,"content":"hi\n"}`),
		textReply("done"))
	e := a.start()
	sid := e.NewSession(ctx, a.work).SessionID
	setMode(t, e, sid, "plan")
	if stop, err := e.Prompt(ctx, sid, "plan, then do it"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	asked := a.permissions()
	if len(asked) != 1 || len(asked[0].ToolCall.Content) == 0 || asked[0].ToolCall.Content[0].Content.Text != "1. Write notes.txt" {
		t.Fatalf("permission requests = %s, want one showing the plan", toJSON(asked))
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "hi\n" {
		t.Errorf("notes.txt = %q, %v", b, err)
	}
	var modeUpdate, configUpdate bool
	for _, u := range e.Updates(sid) {
		switch u := u.(type) {
		case *acp.CurrentModeUpdate:
			modeUpdate = modeUpdate || u.CurrentModeID == "acceptEdits"
		case *acp.ConfigOptionUpdate:
			for _, o := range u.ConfigOptions {
				configUpdate = configUpdate || (o.ID == "mode" && o.CurrentValue == "acceptEdits")
			}
		}
	}
	if !modeUpdate || !configUpdate {
		t.Errorf("current_mode_update %v, config_option_update %v; want both to say acceptEdits", modeUpdate, configUpdate)
	}
}

// Item 5: a retried request shows no thinking; a final failure answers
// the prompt with an error (Zed shows it with Retry), not end_turn.
func TestZedModelFailureIsAnError(t *testing.T) {
	ctx := testCtx(t)
	overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	invalid := `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1: tool_use ids must be unique"}}`
	model := newZedModel(t,
		zedStep{status: 529, body: overloaded, header: map[string]string{"retry-after-ms": "1"}},
		zedStep{body: textReply("after a retry")},
		zedStep{status: 400, body: invalid})
	a := newZedAgent(t, model.srv.URL)
	e := a.start()
	sid := e.NewSession(ctx, a.work).SessionID
	if stop, err := e.Prompt(ctx, sid, "one"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	for _, u := range e.Updates(sid) {
		if th, ok := u.(*acp.AgentThoughtChunk); ok {
			t.Errorf("a retry was shown as thinking: %q", th.Content.Text)
		}
	}
	stop, err := e.Prompt(ctx, sid, "two")
	if err == nil || rpcCode(err) == 0 || !strings.Contains(err.Error(), "ids must be unique") {
		t.Errorf("prompt after a final failure = %q, %v; want a JSON-RPC error naming it", stop, err)
	}
}

// Items 8 and 9: TodoWrite sends only the plan; Read's paging hint
// reaches the model, not the card; a Task subagent's calls name their
// Task call in _meta.parentToolCallId (Zed nests them); the chunks of one
// response share a messageId.
func TestZedCardsCarryNoModelNoise(t *testing.T) {
	ctx := testCtx(t)
	model := newZedModel(t)
	a := newZedAgent(t, model.srv.URL)
	long := filepath.Join(a.work, "long.txt")
	os.WriteFile(long, []byte(strings.Repeat("line\n", 3000)), 0o644)
	model.steps = replies(
		toolReply("toolu_todo", "TodoWrite", `{"todos":[{"content":"Run the tests","status":"in_progress","activeForm":"Running the tests"}]}`),
		toolReply("toolu_r", "Read", `{"file_path":`+quoteJSON(long)+`}`),
		toolReply("toolu_task", "Task", `{"description":"Look around","prompt":"List the files","subagent_type":"general-purpose"}`),
		toolReply("toolu_child", "Glob", `{"pattern":"*"}`),
		textReply("nothing much"),
		textReply("done"))
	e := a.start()
	sid := e.NewSession(ctx, a.work).SessionID
	setMode(t, e, sid, "bypassPermissions")
	if stop, err := e.Prompt(ctx, sid, "work"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	updates := e.Updates(sid)
	if calls, ups := cardsOf(updates, "toolu_todo"); len(calls)+len(ups) != 0 {
		t.Errorf("TodoWrite sent cards: %s %s", toJSON(calls), toJSON(ups))
	}
	plans := 0
	for _, u := range updates {
		if _, ok := u.(*acp.PlanUpdate); ok {
			plans++
		}
	}
	if plans != 1 {
		t.Errorf("%d plan updates, want 1", plans)
	}
	reqs := model.Requests()
	if text, _ := toolResultIn(t, reqs[1], "toolu_todo"); !strings.Contains(text, "Keep using it") {
		t.Errorf("the model's TodoWrite result lost its text: %q", text)
	}
	if text, _ := toolResultIn(t, reqs[2], "toolu_r"); !strings.Contains(text, "offset") {
		t.Errorf("the model did not get Read's paging hint")
	}
	_, ups := cardsOf(updates, "toolu_r")
	if card := ups[len(ups)-1].Content[0].Content.Text; strings.Contains(card, "Use offset and limit") {
		t.Errorf("the Read card shows the model's hint")
	}
	child, childUps := cardsOf(updates, "toolu_child")
	if len(child) != 1 || child[0].Meta["parentToolCallId"] != "toolu_task" || len(childUps) == 0 || childUps[len(childUps)-1].Meta["parentToolCallId"] != "toolu_task" {
		t.Errorf("subagent call = %s %s, want _meta.parentToolCallId toolu_task", toJSON(child), toJSON(childUps))
	}
	if parent, _ := cardsOf(updates, "toolu_task"); len(parent) != 1 || parent[0].Meta["parentToolCallId"] != nil {
		t.Errorf("the Task call = %s, want no parent", toJSON(parent))
	}
	ids := map[string]bool{}
	for _, u := range updates {
		if c, ok := u.(*acp.AgentMessageChunk); ok {
			if c.MessageID == "" {
				t.Errorf("a chunk without messageId: %q", c.Content.Text)
			}
			ids[c.MessageID] = true
		}
	}
	if len(ids) != 1 {
		t.Errorf("message ids %v, want the final response's one", ids)
	}
}

// Item 9: Read asks the editor for a window with line and limit and Zed
// follows the 0-based row; a client's error details reach the tool
// result; /status counts survive a reload; /export writes into the state
// folder; a resource_link to a file of the session reaches the model as
// its content (through the editor, capped), other links stay links.
func TestZedThreadDetails(t *testing.T) {
	ctx := testCtx(t)
	model := newZedModel(t)
	a := newZedAgent(t, model.srv.URL)
	long := filepath.Join(a.work, "long.txt")
	os.WriteFile(long, []byte(strings.Repeat("line\n", 3000)), 0o644)
	locked := filepath.Join(a.work, "locked.txt")
	os.WriteFile(locked, []byte("x\n"), 0o644)
	notes := filepath.Join(a.work, "notes.md")
	os.WriteFile(notes, []byte("the release is on Friday\n"), 0o644)
	big := filepath.Join(a.work, "big.txt")
	os.WriteFile(big, []byte(strings.Repeat("0123456789abcdef\n", 20000)), 0o644)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("outside-content\n"), 0o644)
	a.onRequestWrapper = func(next func(context.Context, string, json.RawMessage) (any, error)) func(context.Context, string, json.RawMessage) (any, error) {
		return func(ctx context.Context, method string, params json.RawMessage) (any, error) {
			var r acp.ReadTextFileRequest
			if method == acp.MethodFSReadTextFile && json.Unmarshal(params, &r) == nil && r.Path == locked {
				return nil, &acp.Error{Code: acp.CodeInternalError, Message: "Internal error", Data: map[string]any{"details": "buffer is locked by another edit"}}
			}
			return next(ctx, method, params)
		}
	}
	model.steps = replies(
		toolReply("toolu_r", "Read", `{"file_path":`+quoteJSON(long)+`,"offset":2500,"limit":10}`),
		toolReply("toolu_l", "Read", `{"file_path":`+quoteJSON(locked)+`}`),
		textReply("read them"),
		textReply("linked"))
	e := a.start()
	sid := e.NewSession(ctx, a.work).SessionID
	if _, err := e.Prompt(ctx, sid, "read"); err != nil {
		t.Fatal(err)
	}
	var window *acp.ReadTextFileRequest
	for _, c := range e.Calls() {
		var r acp.ReadTextFileRequest
		if c.Method == acp.MethodFSReadTextFile && json.Unmarshal(c.Params, &r) == nil && r.Path == long && r.Line != nil {
			window = &r
		}
	}
	if window == nil || *window.Line != 2500 || window.Limit == nil {
		t.Errorf("fs/read_text_file for the window = %s, want line 2500 with a limit", toJSON(window))
	}
	calls, _ := cardsOf(e.Updates(sid), "toolu_r")
	if len(calls) != 1 || len(calls[0].Locations) != 1 || calls[0].Locations[0].Line == nil || *calls[0].Locations[0].Line != 2499 {
		t.Errorf("Read locations = %s, want line 2499 (Zed's 0-based row of line 2500)", toJSON(calls))
	}
	if text, isErr := toolResultIn(t, model.Requests()[2], "toolu_l"); !isErr || !strings.Contains(text, "buffer is locked") {
		t.Errorf("tool result = %q (error %v), want the client's details", text, isErr)
	}

	// resource_link: a file of the session is read through the editor;
	// a big one is cut with a marker; outside the session and web links
	// stay links.
	link := func(path string) acp.ContentBlock {
		return acp.ContentBlock{Type: "resource_link", URI: "file://" + path, Name: filepath.Base(path)}
	}
	prompt := acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock("look at "), link(notes), link(big), link(outside),
		{Type: "resource_link", URI: "https://example.com/doc", Name: "doc"}}}
	var resp acp.PromptResponse
	if err := e.Call(ctx, acp.MethodSessionPrompt, prompt, &resp); err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	last := reqs[len(reqs)-1]
	for _, want := range []string{"the release is on Friday", "cut at", "https://example.com/doc", "secret.txt"} {
		if !strings.Contains(last, want) {
			t.Errorf("the model's request lacks %q", want)
		}
	}
	if strings.Contains(last, "outside-content") {
		t.Error("a file outside the session's directories reached the model")
	}
	viaEditor := false
	for _, c := range e.Calls() {
		var r acp.ReadTextFileRequest
		viaEditor = viaEditor || (c.Method == acp.MethodFSReadTextFile && json.Unmarshal(c.Params, &r) == nil && r.Path == notes)
	}
	if !viaEditor {
		t.Error("the linked file was not read through the editor's fs")
	}

	// /export goes to the state folder, not the project.
	if _, err := e.Prompt(ctx, sid, "/export"); err != nil {
		t.Fatal(err)
	}
	exported := filepath.Join(a.state, "exports", "cordis-"+sid+".md")
	if data, err := os.ReadFile(exported); err != nil || !strings.Contains(string(data), "read them") {
		t.Errorf("export at %s: %v", exported, err)
	}
	if entries, _ := filepath.Glob(filepath.Join(a.work, "cordis-*")); len(entries) != 0 {
		t.Errorf("/export wrote into the project: %v", entries)
	}
	e.Kill()

	// /status after a reload in a new process counts what came before.
	e = a.start()
	a.load(e, sid)
	if _, err := e.Prompt(ctx, sid, "/status"); err != nil {
		t.Fatal(err)
	}
	status := acptestText(e.Updates(sid))
	for _, want := range []string{"turns: 4", "Read: 2, 1 failed"} {
		if !strings.Contains(status, want) {
			t.Errorf("/status after a reload lacks %q:\n%s", want, status)
		}
	}
}

// Item 9: /model and /mode answer while a turn runs, as Zed's pickers
// change the same settings mid-turn; the turn goes on.
func TestZedModeCommandDuringATurn(t *testing.T) {
	ctx := testCtx(t)
	hold := make(chan struct{})
	model := newZedModel(t, zedStep{body: textReply("slow answer"), hold: hold})
	a := newZedAgent(t, model.srv.URL)
	e := a.start()
	sid := e.NewSession(ctx, a.work).SessionID
	done := make(chan error, 1)
	go func() {
		stop, err := e.Prompt(ctx, sid, "take your time")
		if err == nil && stop != acp.StopEndTurn {
			err = fmt.Errorf("stop reason %q", stop)
		}
		done <- err
	}()
	waitFor(t, "the turn's model request", func() bool { return len(model.Requests()) == 1 })
	if stop, err := e.Prompt(ctx, sid, "/mode acceptEdits"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("/mode during a turn = %q, %v", stop, err)
	}
	switched := false
	for _, u := range e.Updates(sid) {
		if m, ok := u.(*acp.CurrentModeUpdate); ok && m.CurrentModeID == "acceptEdits" {
			switched = true
		}
	}
	if !switched {
		t.Errorf("/mode during a turn did not switch the mode: %q", acptestText(e.Updates(sid)))
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatalf("the running turn: %v", err)
	}
}

// Items 6 and 9: `defaultMode: acceptedits` (wrong case) is not taken and
// advertised: the editor gets its initialize, then session/new fails
// naming the file, line and field, with the right spelling.
func TestZedDefaultModeIsChecked(t *testing.T) {
	ctx := testCtx(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "cordis.yml")
	os.WriteFile(config, []byte("- id: agent\n  name: agent\n  config:\n    defaultMode: acceptedits\n- id: llm\n  name: llm/anthropic\n  config: {model: m}\n"), 0o644)
	a := newZedAgent(t, newZedModel(t).srv.URL, "--config", config)
	a.work = dir
	e := a.start()
	var resp acp.NewSessionResponse
	err := e.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}}, &resp)
	for _, want := range []string{config + ":4:", `"defaultMode"`, `"acceptedits"`, `did you mean "acceptEdits"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("session/new = %v, want an error naming %s", err, want)
		}
	}
}
