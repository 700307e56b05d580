package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cordis-agent/cordis/loop/mcp"
	"github.com/cordis-agent/cordis/loop/tools"
)

// A server that elicits during a tools/call gets the user's answer
// through Options.Elicit, and uses it in its result: accept with content,
// decline, and cancel when Elicit fails. A malformed request is refused
// with -32602 without asking. The capability is offered as {}.
func TestElicitation(t *testing.T) {
	var (
		mu   sync.Mutex
		reqs []mcp.ElicitRequest
	)
	elicit := func(ctx context.Context, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
		mu.Lock()
		reqs = append(reqs, req)
		mu.Unlock()
		switch req.Message {
		case "accept":
			return mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{"count":2,"name":"Ada"}`)}, nil
		case "decline":
			return mcp.ElicitResult{Action: "decline", Content: json.RawMessage(`{"ignored":true}`)}, nil
		case "odd":
			return mcp.ElicitResult{Action: "maybe"}, nil
		}
		return mcp.ElicitResult{}, errors.New("the editor went away")
	}
	m := start(t, mcp.Options{Elicit: elicit}, stdio("asker", "elicit"))
	ts := m.Tools(context.Background())
	ask := find(t, ts, "mcp__asker__ask")

	for _, tc := range []struct{ message, want string }{
		{"accept", `result: {"action":"accept","content":{"count":2,"name":"Ada"}}`},
		{"decline", `result: {"action":"decline"}`},
		{"odd", `result: {"action":"cancel"}`},
		{"fail", `result: {"action":"cancel"}`},
	} {
		res := call(t, ask, `{"message":"`+tc.message+`"}`)
		if res.IsError || res.Text != tc.want {
			t.Errorf("ask %s = %q (error %v), want %q", tc.message, res.Text, res.IsError, tc.want)
		}
	}
	mu.Lock()
	if len(reqs) != 4 {
		t.Fatalf("Elicit called %d times, want 4", len(reqs))
	}
	first := reqs[0]
	mu.Unlock()
	if first.Server != "asker" || first.Message != "accept" {
		t.Errorf("request = %+v, want server asker, message accept", first)
	}
	var schema struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(first.RequestedSchema, &schema); err != nil || schema.Type != "object" ||
		schema.Properties["name"]["type"] != "string" || schema.Properties["count"]["minimum"] != 1.0 || len(schema.Required) != 1 {
		t.Errorf("requestedSchema = %s (%v), want the server's schema unchanged", first.RequestedSchema, err)
	}

	bad := call(t, find(t, ts, "mcp__asker__ask_bad"), `{}`)
	if !strings.HasPrefix(bad.Text, `error: {"code":-32602,`) {
		t.Errorf("malformed elicitation answered %q, want a -32602 error", bad.Text)
	}
	mu.Lock()
	if len(reqs) != 4 {
		t.Errorf("a malformed elicitation reached Elicit")
	}
	mu.Unlock()

	caps := call(t, find(t, ts, "mcp__asker__caps"), `{}`)
	if !sameJSON(caps.Text, `{"roots":{},"elicitation":{}}`) {
		t.Errorf("initialize capabilities = %s, want roots and elicitation", caps.Text)
	}
}

// Without Options.Elicit the capability is not offered, and a server that
// elicits anyway is answered -32601, as before.
func TestElicitationNotOffered(t *testing.T) {
	m := start(t, mcp.Options{}, stdio("asker", "elicit"))
	ts := m.Tools(context.Background())
	if caps := call(t, find(t, ts, "mcp__asker__caps"), `{}`); !sameJSON(caps.Text, `{"roots":{}}`) {
		t.Errorf("initialize capabilities = %s, want roots only", caps.Text)
	}
	res := call(t, find(t, ts, "mcp__asker__ask"), `{"message":"accept"}`)
	if !strings.HasPrefix(res.Text, `error: {"code":-32601,`) {
		t.Errorf("elicitation answered %q, want a -32601 error", res.Text)
	}
}

// The elicitation of the only call in progress ends with that call: the
// turn's cancellation reaches the ElicitFunc, which then answers cancel.
func TestElicitationEndsWithItsCall(t *testing.T) {
	type key struct{}
	asked := make(chan struct{})
	ended := make(chan any, 1)
	elicit := func(ctx context.Context, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
		close(asked)
		<-ctx.Done()
		ended <- ctx.Value(key{})
		return mcp.ElicitResult{Action: "accept"}, nil
	}
	m := start(t, mcp.Options{Elicit: elicit}, stdio("asker", "elicit"))
	ask := find(t, m.Tools(context.Background()), "mcp__asker__ask")
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "toolu_1"))
	go func() { <-asked; cancel() }()
	res := ask.Run(ctx, &tools.Env{}, json.RawMessage(`{"message":"accept"}`))
	if !res.IsError || !strings.Contains(res.Text, "cancelled") {
		t.Errorf("result = %q, want the call cancelled", res.Text)
	}
	if v := <-ended; v != "toolu_1" {
		t.Errorf("the elicitation's context carries %v, want the call's value toolu_1", v)
	}
}

// The official SDK's server, over streamable HTTP (the request arrives on
// the event stream of the tools/call), takes the offered capability as
// form mode and gets the answer.
func TestElicitationSDKServer(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "sdk-asker", Version: "1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "confirm", Description: "Asks for a confirmation."},
		func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Proceed?", RequestedSchema: json.RawMessage(
				`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)})
			if err != nil {
				return nil, nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("%s %v", res.Action, res.Content["ok"])}}}, nil, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(srv.Close)
	elicit := func(ctx context.Context, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
		if req.Message != "Proceed?" {
			return mcp.ElicitResult{Action: "decline"}, nil
		}
		return mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{"ok":true}`)}, nil
	}
	m := start(t, mcp.Options{Elicit: elicit}, mcp.Spec{Name: "sdk", Type: "http", URL: srv.URL})
	res := call(t, find(t, m.Tools(context.Background()), "mcp__sdk__confirm"), `{}`)
	if res.IsError || res.Text != "accept true" {
		t.Errorf("confirm = %q (error %v), want accept true", res.Text, res.IsError)
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b string) bool {
	var va, vb any
	return json.Unmarshal([]byte(a), &va) == nil && json.Unmarshal([]byte(b), &vb) == nil && cmp.Equal(va, vb)
}

// urlRecorder records what the URL-mode options are told.
type urlRecorder struct {
	mu        sync.Mutex
	asked     []mcp.ElicitRequest
	completed []string
	unshown   []mcp.ElicitRequest
	done      chan struct{} // closed at the first completion
	answer    string
}

func newURLRecorder(answer string) *urlRecorder {
	return &urlRecorder{done: make(chan struct{}), answer: answer}
}

func (r *urlRecorder) ask(_ context.Context, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, req)
	return mcp.ElicitResult{Action: r.answer, Content: json.RawMessage(`{"ignored":true}`)}, nil
}

func (r *urlRecorder) complete(server, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.completed = append(r.completed, server+" "+id)
	if len(r.completed) == 1 {
		close(r.done)
	}
}

func (r *urlRecorder) note(req mcp.ElicitRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unshown = append(r.unshown, req)
}

func (r *urlRecorder) options(form bool) mcp.Options {
	o := mcp.Options{ElicitURL: r.ask, ElicitationComplete: r.complete, Unshown: r.note}
	if form {
		o.Elicit = func(context.Context, mcp.ElicitRequest) (mcp.ElicitResult, error) {
			return mcp.ElicitResult{Action: "decline"}, nil
		}
	}
	return o
}

// URL mode, offered: the capability says form and url; a server's URL
// elicitation reaches ElicitURL with its URL and id, the user's accept
// goes back without content, and the server's completion of it is passed
// on once, while its completion of an id never asked is not.
func TestElicitationURL(t *testing.T) {
	rec := newURLRecorder("accept")
	m := start(t, rec.options(true), stdio("asker", "elicit"))
	ts := m.Tools(context.Background())
	if caps := call(t, find(t, ts, "mcp__asker__caps"), `{}`); !sameJSON(caps.Text, `{"roots":{},"elicitation":{"form":{},"url":{}}}`) {
		t.Errorf("initialize capabilities = %s, want form and url elicitation", caps.Text)
	}
	res := call(t, find(t, ts, "mcp__asker__ask_url"), `{"url":"https://auth.example.test/connect?state=1"}`)
	if res.IsError || res.Text != `result: {"action":"accept"}` {
		t.Errorf("ask_url = %q (error %v), want an accept without content", res.Text, res.IsError)
	}
	<-rec.done
	rec.mu.Lock()
	defer rec.mu.Unlock()
	want := []mcp.ElicitRequest{{Server: "asker", Mode: "url", Message: "Connect your account", URL: "https://auth.example.test/connect?state=1", ElicitationID: "connect-1"}}
	if diff := cmp.Diff(want, rec.asked); diff != "" {
		t.Errorf("ElicitURL requests (-want +got):\n%s", diff)
	}
	if len(rec.completed) != 1 || rec.completed[0] != "asker connect-1" {
		t.Errorf("completions passed on = %q, want only asker connect-1", rec.completed)
	}
	if len(rec.unshown) != 0 {
		t.Errorf("Unshown told of %+v", rec.unshown)
	}
}

// A declined URL elicitation's completion is not passed on, and a URL
// that is no web page (javascript:, file:) is refused without asking.
func TestElicitationURLDeclinedAndRefused(t *testing.T) {
	rec := newURLRecorder("decline")
	m := start(t, rec.options(false), stdio("asker", "elicit"))
	ts := m.Tools(context.Background())
	if caps := call(t, find(t, ts, "mcp__asker__caps"), `{}`); !sameJSON(caps.Text, `{"roots":{},"elicitation":{"url":{}}}`) {
		t.Errorf("initialize capabilities = %s, want url elicitation only", caps.Text)
	}
	ask := find(t, ts, "mcp__asker__ask_url")
	if res := call(t, ask, `{}`); res.Text != `result: {"action":"decline"}` {
		t.Errorf("ask_url declined = %q", res.Text)
	}
	for _, bad := range []string{"javascript:alert(1)", "file:///etc/passwd", "/relative"} {
		res := call(t, ask, `{"url":"`+bad+`"}`)
		if !strings.HasPrefix(res.Text, `error: {"code":-32602,`) {
			t.Errorf("ask_url %s = %q, want a -32602 error", bad, res.Text)
		}
	}
	// A form elicitation when only URL mode is offered is refused too.
	if res := call(t, find(t, ts, "mcp__asker__ask"), `{"message":"name?"}`); !strings.HasPrefix(res.Text, `error: {"code":-32602,`) {
		t.Errorf("ask (form) with URL mode only = %q, want a -32602 error", res.Text)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.asked) != 1 || len(rec.completed) != 0 {
		t.Errorf("asked %d times, completions %q; want 1 and none", len(rec.asked), rec.completed)
	}
	if len(rec.unshown) != 1 || rec.unshown[0].Mode != "form" || rec.unshown[0].Message != "name?" {
		t.Errorf("Unshown told of %+v, want the form request", rec.unshown)
	}
}

// URL mode not offered: the server's URL elicitation is refused with
// -32602 (form offered) or -32601 (no elicitation offered) without
// asking, and Unshown is told what was asked, so the user can be.
func TestElicitationURLNotOffered(t *testing.T) {
	for _, tc := range []struct {
		name string
		form bool
		code string
	}{{"form only", true, "-32602"}, {"none", false, "-32601"}} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				mu      sync.Mutex
				unshown []mcp.ElicitRequest
			)
			opts := mcp.Options{Unshown: func(r mcp.ElicitRequest) {
				mu.Lock()
				unshown = append(unshown, r)
				mu.Unlock()
			}}
			if tc.form {
				opts.Elicit = func(context.Context, mcp.ElicitRequest) (mcp.ElicitResult, error) {
					t.Error("a URL elicitation reached the form ElicitFunc")
					return mcp.ElicitResult{Action: "decline"}, nil
				}
			}
			m := start(t, opts, stdio("asker", "elicit"))
			res := call(t, find(t, m.Tools(context.Background()), "mcp__asker__ask_url"), `{}`)
			// (The SDK words a -32601 itself: "method not found".)
			if !strings.HasPrefix(res.Text, `error: {"code":`+tc.code+`,`) || (tc.form && !strings.Contains(res.Text, "editor cannot show")) {
				t.Errorf("ask_url = %q, want a %s error saying the editor cannot show it", res.Text, tc.code)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(unshown) != 1 || unshown[0].Mode != "url" || unshown[0].URL != "https://auth.example.test/connect?state=mcptest" || unshown[0].Server != "asker" {
				t.Errorf("Unshown told of %+v, want the URL request", unshown)
			}
		})
	}
}
