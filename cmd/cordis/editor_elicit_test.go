package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/loop/mcp/mcptest"
)

// The tests here are issue 20's last items through the built binary:
// URL-mode elicitation from an MCP server, the key asked for by a form
// elicitation, /model during a turn, and session/list pagination. The
// MCP server is this test binary re-executed as mcptest's stdio server.

func init() { mcptest.ServeIfRequested() }

// withElicitation is caps with the elicitation modes form and url as
// given.
func withElicitation(caps acp.ClientCapabilities, form, url bool) acp.ClientCapabilities {
	caps.Elicitation = &acp.ElicitationCapabilities{}
	if form {
		caps.Elicitation.Form = &acp.Supported{}
	}
	if url {
		caps.Elicitation.URL = &acp.Supported{}
	}
	return caps
}

// elicitEditor is cordis serving a Zed-like editor that also offers
// elicitation; it records the elicitations it is sent and answers each
// with answer.
type elicitEditor struct {
	*acptest.Editor
	stderr *syncBuffer
	mu     sync.Mutex
	asked  []*acp.CreateElicitationRequest
}

func startElicitEditor(t *testing.T, env []string, work string, caps acp.ClientCapabilities, answer func(*acp.CreateElicitationRequest) *acp.CreateElicitationResponse) *elicitEditor {
	cmd := exec.Command(binary, "acp", "--state-dir", t.TempDir(), "--log-level", "debug")
	cmd.Env, cmd.Dir = env, work
	ed := &elicitEditor{stderr: &syncBuffer{}}
	cmd.Stderr = ed.stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent stderr:\n%s", ed.stderr.String())
		}
	})
	ed.Editor = acptest.StartProcess(t, cmd)
	acptest.ServeLikeZed(ed.Editor, func(_ context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		resp, _ := acptest.SelectKind(req, acp.PermAllowOnce)
		return resp, nil
	})
	ed.OnElicitation = func(_ context.Context, req *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error) {
		ed.mu.Lock()
		ed.asked = append(ed.asked, req)
		ed.mu.Unlock()
		return answer(req), nil
	}
	ed.Initialize(testCtx(t), caps)
	return ed
}

func (ed *elicitEditor) elicitations() []*acp.CreateElicitationRequest {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	return append([]*acp.CreateElicitationRequest(nil), ed.asked...)
}

// framesOf are the agent's frames that call or notify method, decoded.
func framesOf(e *acptest.Editor, method string) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	for _, f := range e.Frames() {
		var m map[string]json.RawMessage
		if json.Unmarshal(f, &m) != nil {
			continue
		}
		var name string
		json.Unmarshal(m["method"], &name)
		if name == method {
			out = append(out, m)
		}
	}
	return out
}

// askingServer is the MCP server "auth": mcptest's stdio server with its
// elicitation tools (ask_url asks to open a URL and, once accepted,
// notifies the completion of that elicitation and of one never asked).
func askingServer(t *testing.T) acp.MCPServer {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := acp.MCPServer{Name: "auth", Command: exe, Args: []string{}}
	for _, kv := range mcptest.Env("elicit") {
		name, value, _ := strings.Cut(kv, "=")
		srv.Env = append(srv.Env, acp.EnvVariable{Name: name, Value: value})
	}
	return srv
}

func newSessionWith(t *testing.T, e *acptest.Editor, cwd string, servers ...acp.MCPServer) string {
	t.Helper()
	var resp acp.NewSessionResponse
	if err := e.Call(testCtx(t), acp.MethodSessionNew, acp.NewSessionRequest{Cwd: cwd, MCPServers: append([]acp.MCPServer{}, servers...)}, &resp); err != nil {
		t.Fatal(err)
	}
	return resp.SessionID
}

const connectURL = "https://auth.example.test/connect?state=xyz"

// Item 11, URL-mode elicitation: an MCP server that asks the user to open
// a URL during a tool call reaches an editor that offers URL mode as ACP
// elicitation/create in URL mode (the URL, an id, the session and the
// tool call, no schema); the user's accept goes back to the server, and
// the server's completion reaches the editor as elicitation/complete
// with the same id, once (a completion of an id never asked does not).
func TestMCPURLElicitationReachesTheEditor(t *testing.T) {
	ctx := testCtx(t)
	model := newZedModel(t, replies(
		toolReply("toolu_url", "mcp__auth__ask_url", `{"url":"`+connectURL+`"}`),
		textReply("Connected."))...)
	work := t.TempDir()
	ed := startElicitEditor(t, isolatedEnv(t, model.srv.URL), work, withElicitation(acptest.ZedCapabilities(), true, true),
		func(*acp.CreateElicitationRequest) *acp.CreateElicitationResponse {
			return &acp.CreateElicitationResponse{Action: acp.ElicitationAccept}
		})
	sid := newSessionWith(t, ed.Editor, work, askingServer(t))
	if stop, err := ed.Prompt(ctx, sid, "connect my account"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}

	asked := ed.elicitations()
	if len(asked) != 1 {
		t.Fatalf("elicitations = %d, want 1", len(asked))
	}
	req := asked[0]
	wantID := sid + "/auth/connect-1"
	if req.Mode != acp.ElicitModeURL || req.URL != connectURL || req.ElicitationID != wantID || req.SessionID != sid ||
		req.ToolCallID != "toolu_url" || len(req.RequestedSchema) != 0 || !strings.Contains(req.Message, `"auth"`) || !strings.Contains(req.Message, "Connect your account") {
		t.Errorf("elicitation/create = %+v, want URL mode with %s, id %s, the session and the tool call, the server named", req, connectURL, wantID)
	}
	result, isError := toolResultIn(t, model.Requests()[1], "toolu_url")
	if isError || result != `result: {"action":"accept"}` {
		t.Errorf("the server got %q (error %v), want the accept", result, isError)
	}
	waitFor(t, "elicitation/complete", func() bool { return len(framesOf(ed.Editor, acp.MethodElicitationComplete)) > 0 })
	completes := framesOf(ed.Editor, acp.MethodElicitationComplete)
	var params acp.CompleteElicitationNotification
	json.Unmarshal(completes[0]["params"], &params)
	if len(completes) != 1 || params.ElicitationID != wantID || completes[0]["id"] != nil {
		t.Errorf("elicitation/complete frames = %d, first %+v; want one notification naming %s", len(completes), params, wantID)
	}
}

// Item 11, URL mode not offered (Zed offers form only here): the server
// is refused with a message that says why, the editor is not asked, and
// the thread says what the server wanted (the host, not the whole URL:
// the user was not asked before following it).
func TestMCPURLElicitationNotOffered(t *testing.T) {
	ctx := testCtx(t)
	model := newZedModel(t, replies(
		toolReply("toolu_url", "mcp__auth__ask_url", `{"url":"`+connectURL+`"}`),
		textReply("Could not connect."))...)
	work := t.TempDir()
	ed := startElicitEditor(t, isolatedEnv(t, model.srv.URL), work, withElicitation(acptest.ZedCapabilities(), true, false),
		func(*acp.CreateElicitationRequest) *acp.CreateElicitationResponse {
			return &acp.CreateElicitationResponse{Action: acp.ElicitationAccept}
		})
	sid := newSessionWith(t, ed.Editor, work, askingServer(t))
	if stop, err := ed.Prompt(ctx, sid, "connect my account"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if asked := ed.elicitations(); len(asked) != 0 {
		t.Errorf("the editor was sent %+v, which it does not take", asked[0])
	}
	result, _ := toolResultIn(t, model.Requests()[1], "toolu_url")
	if !strings.Contains(result, "-32602") || !strings.Contains(result, "editor cannot show") {
		t.Errorf("the server got %q, want a -32602 refusal saying the editor cannot show it", result)
	}
	thread := acptestText(ed.Updates(sid))
	if !strings.Contains(thread, `The MCP server "auth" asked you to open a web page on auth.example.test ("Connect your account")`) {
		t.Errorf("the thread does not say what the server asked:\n%s", thread)
	}
	if strings.Contains(thread, "state=xyz") {
		t.Errorf("the thread shows the whole URL:\n%s", thread)
	}
}

// Item 7's form elicitation: with no key anywhere, an editor that offers
// form elicitation is asked for the key on authenticate (an elicitation
// tied to that request, no session); the key is stored 0600 where
// `cordis login` stores it, authenticate succeeds, the model gets it,
// and it appears in no frame cordis writes nor in its debug log.
func TestAuthenticateAsksForTheKeyByForm(t *testing.T) {
	ctx := testCtx(t)
	model := newLoginModel(t)
	env := append(isolatedEnv(t, ""), "ANTHROPIC_BASE_URL="+model.srv.URL)
	home := strings.TrimPrefix(env[0], "HOME=")
	work := t.TempDir()
	const key = "sk-ant-form-0123456789abcdef"
	ed := startElicitEditor(t, env, work, withElicitation(acptest.ZedCapabilities(), true, false),
		func(*acp.CreateElicitationRequest) *acp.CreateElicitationResponse {
			return &acp.CreateElicitationResponse{Action: acp.ElicitationAccept, Content: json.RawMessage(`{"apiKey":" ` + key + `\n"}`)}
		})

	if err := ed.Call(ctx, acp.MethodAuthenticate, acp.AuthenticateRequest{MethodID: "ANTHROPIC_API_KEY"}, &struct{}{}); err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	asked := ed.elicitations()
	if len(asked) != 1 {
		t.Fatalf("elicitations = %d, want 1", len(asked))
	}
	req := asked[0]
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	json.Unmarshal(req.RequestedSchema, &schema)
	if req.Mode != acp.ElicitModeForm || req.SessionID != "" || len(req.RequestID) == 0 || schema.Properties["apiKey"]["type"] != "string" ||
		schema.Properties["apiKey"]["title"] != "ANTHROPIC_API_KEY" || len(schema.Required) != 1 {
		t.Errorf("elicitation/create = %+v (schema %s), want a form tied to the request asking for ANTHROPIC_API_KEY", req, req.RequestedSchema)
	}
	// The request it names is the authenticate being answered.
	for _, f := range ed.Frames() {
		var m map[string]json.RawMessage
		json.Unmarshal(f, &m)
		if m["method"] == nil && bytes.Equal(m["id"], req.RequestID) && m["error"] != nil {
			t.Errorf("the request the form is tied to (%s) failed: %s", req.RequestID, f)
		}
	}

	credPath := filepath.Join(home, ".config", "cordis", "credentials")
	data, err := os.ReadFile(credPath)
	fi, _ := os.Stat(credPath)
	if err != nil || string(data) != "ANTHROPIC_API_KEY="+key+"\n" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credential file: %v, %d bytes, mode %v; want the key alone, 0600", err, len(data), fi.Mode())
	}
	sid := ed.NewSession(ctx, work).SessionID
	if _, err := ed.Prompt(ctx, sid, "hello"); err != nil {
		t.Fatal(err)
	}
	if model.keys[0] != key {
		t.Errorf("the model got key %q, want the one given in the form", model.keys[0])
	}
	for _, f := range ed.Frames() {
		if bytes.Contains(f, []byte(key)) {
			t.Fatalf("the key reached a frame: %s", f)
		}
	}
	if strings.Contains(ed.stderr.String(), key) {
		t.Fatal("the key reached cordis's log")
	}
	if !strings.Contains(acptestText(ed.Updates(sid)), "[REDACTED:ANTHROPIC_API_KEY]") {
		t.Error("the key in the model's answer was not scrubbed")
	}
}

// The missing-key case of session/new asks too: declined, session/new
// fails auth_required and nothing is stored; given, the session opens in
// the same request and works. A client without form elicitation is not
// asked (auth_required at once, as before).
func TestSessionNewAsksForTheKeyByForm(t *testing.T) {
	ctx := testCtx(t)
	model := newLoginModel(t)
	env := append(isolatedEnv(t, ""), "ANTHROPIC_BASE_URL="+model.srv.URL)
	home := strings.TrimPrefix(env[0], "HOME=")
	work := t.TempDir()
	const key = "sk-ant-session-0123456789"
	answers := []*acp.CreateElicitationResponse{
		{Action: acp.ElicitationDecline},
		{Action: acp.ElicitationAccept, Content: json.RawMessage(`{"apiKey":"` + key + `"}`)},
	}
	var n int
	ed := startElicitEditor(t, env, work, withElicitation(acptest.ZedCapabilities(), true, false),
		func(*acp.CreateElicitationRequest) *acp.CreateElicitationResponse {
			n++
			return answers[n-1]
		})
	var resp acp.NewSessionResponse
	err := ed.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: work, MCPServers: []acp.MCPServer{}}, &resp)
	if rpcCode(err) != acp.CodeAuthRequired {
		t.Fatalf("session/new with the form declined = %v, want auth_required", err)
	}
	credPath := filepath.Join(home, ".config", "cordis", "credentials")
	if _, err := os.Stat(credPath); err == nil {
		t.Fatal("a declined form stored something")
	}
	if err := ed.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: work, MCPServers: []acp.MCPServer{}}, &resp); err != nil {
		t.Fatalf("session/new with the key given: %v", err)
	}
	if asked := ed.elicitations(); len(asked) != 2 || asked[1].SessionID != "" || len(asked[1].RequestID) == 0 {
		t.Fatalf("elicitations = %d, want 2 tied to their session/new", len(asked))
	}
	if _, err := ed.Prompt(ctx, resp.SessionID, "hello"); err != nil || len(model.keys) != 1 || model.keys[0] != key {
		t.Fatalf("prompt: %v; the model got %q", err, model.keys)
	}

	// An editor without form elicitation: not asked.
	plain := exec.Command(binary, "acp", "--state-dir", t.TempDir())
	plain.Env, plain.Dir = isolatedEnv(t, ""), work
	e := acptest.StartProcess(t, plain)
	e.OnElicitation = func(context.Context, *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error) {
		t.Error("an editor without form elicitation was sent one")
		return &acp.CreateElicitationResponse{Action: acp.ElicitationCancel}, nil
	}
	e.Initialize(ctx, acptest.ZedCapabilities())
	if err := e.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: work, MCPServers: []acp.MCPServer{}}, &resp); rpcCode(err) != acp.CodeAuthRequired {
		t.Fatalf("session/new without a key or a form = %v, want auth_required", err)
	}
}

// modelOf is the "model" of a request body.
func modelOf(t *testing.T, body string) string {
	t.Helper()
	var req struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	return req.Model
}

// Item 9: /model sent while a turn runs changes the model from the
// turn's next step on (and for the next turn), as Zed's model picker
// would; the running turn goes on.
func TestZedModelCommandDuringATurn(t *testing.T) {
	ctx := testCtx(t)
	hold := make(chan struct{})
	model := newZedModel(t,
		zedStep{body: toolReply("toolu_glob", "Glob", `{"pattern":"*.txt"}`), hold: hold},
		zedStep{body: textReply("Nothing there.")},
		zedStep{body: textReply("Second turn.")})
	config := configFile(t, "- id: agent\n  name: agent\n  config:\n    models: [model-one, model-two]\n- id: llm\n  name: llm/anthropic\n  config: {model: model-one}\n")
	a := newZedAgent(t, model.srv.URL, "--config", config)
	e := a.start()
	sid := e.NewSession(ctx, a.work).SessionID
	done := make(chan error, 1)
	go func() {
		stop, err := e.Prompt(ctx, sid, "look for text files")
		if err == nil && stop != acp.StopEndTurn {
			err = fmt.Errorf("stop reason %q", stop)
		}
		done <- err
	}()
	waitFor(t, "the turn's first model request", func() bool { return len(model.Requests()) == 1 })
	if stop, err := e.Prompt(ctx, sid, "/model model-two"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("/model during a turn = %q, %v", stop, err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatalf("the running turn: %v", err)
	}
	if _, err := e.Prompt(ctx, sid, "again"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, body := range model.Requests() {
		got = append(got, modelOf(t, body))
	}
	if strings.Join(got, " ") != "model-one model-two model-two" {
		t.Errorf("models of the requests = %v, want model-one, then model-two from the running turn's next step on", got)
	}
	var picked string
	for _, u := range e.Updates(sid) {
		if c, ok := u.(*acp.ConfigOptionUpdate); ok {
			for _, o := range c.ConfigOptions {
				if o.ID == "model" {
					picked = fmt.Sprint(o.CurrentValue)
				}
			}
		}
	}
	if picked != "model-two" {
		t.Errorf("the model picker shows %q after /model, want model-two", picked)
	}
}

// Item 11: session/list pages 50 sessions at a time: the first page
// carries nextCursor, the next page the rest and none; a session created
// between the two calls moves to the top without shifting the second
// page; every session is listed once; a cursor cordis never gave is
// refused with invalid params.
func TestSessionListPagination(t *testing.T) {
	ctx := testCtx(t)
	a := &sessionAgent{t: t, state: t.TempDir(), work: t.TempDir()}
	a.env = isolatedEnv(t, newFakeModel(t).srv.URL)
	e := a.start()
	const total = 53
	created := map[string]bool{}
	for range total {
		created[e.NewSession(ctx, a.work).SessionID] = true
	}
	page := func(cursor string) acp.ListSessionsResponse {
		t.Helper()
		var list acp.ListSessionsResponse
		if err := e.Call(ctx, acp.MethodSessionList, acp.ListSessionsRequest{Cursor: cursor}, &list); err != nil {
			t.Fatal(err)
		}
		return list
	}
	first := page("")
	if len(first.Sessions) != 50 || first.NextCursor == "" {
		t.Fatalf("first page: %d sessions, nextCursor %q; want 50 and a cursor", len(first.Sessions), first.NextCursor)
	}
	newer := e.NewSession(ctx, a.work).SessionID
	second := page(first.NextCursor)
	if len(second.Sessions) != total-50 || second.NextCursor != "" {
		t.Fatalf("second page: %d sessions, nextCursor %q; want %d and none", len(second.Sessions), second.NextCursor, total-50)
	}
	seen := map[string]bool{}
	for _, s := range append(first.Sessions, second.Sessions...) {
		if seen[s.SessionID] || !created[s.SessionID] {
			t.Errorf("session %s listed twice or never created", s.SessionID)
		}
		seen[s.SessionID] = true
	}
	if len(seen) != total {
		t.Errorf("listed %d distinct sessions, want %d", len(seen), total)
	}
	if top := page("").Sessions[0].SessionID; top != newer {
		t.Errorf("the newest session is %s, want %s first", top, newer)
	}
	var list acp.ListSessionsResponse
	if err := e.Call(ctx, acp.MethodSessionList, acp.ListSessionsRequest{Cursor: "not-a-cursor"}, &list); rpcCode(err) != acp.CodeInvalidParams {
		t.Errorf("session/list with a bad cursor = %v, want invalid params", err)
	}
}
