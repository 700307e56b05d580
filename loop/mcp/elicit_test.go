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
