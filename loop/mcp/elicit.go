package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ElicitRequest is a server's form elicitation (elicitation/create): it
// asks the user for the fields of RequestedSchema.
type ElicitRequest struct {
	// Server is the name of the server that asks, as the editor configured
	// it.
	Server string
	// Message says what is asked and why.
	Message string
	// RequestedSchema is the server's schema, passed through: an object
	// schema whose properties are primitives (string, number, integer,
	// boolean, or an array for a multi-select enum).
	RequestedSchema json.RawMessage
}

// ElicitResult is the user's answer.
type ElicitResult struct {
	// Action is "accept", "decline" or "cancel"; any other answers
	// "cancel".
	Action string
	// Content is the accepted fields, a JSON object (only with accept).
	Content json.RawMessage
}

// ElicitFunc asks the user. ctx ends when the elicitation is no longer
// wanted; an error (or an ended ctx) answers the server "cancel". When
// exactly one tools/call or prompts/get of the server is in progress, ctx
// is derived from that call's context (so it carries its values and ends
// with it); a server's request does not say which call it belongs to, so
// with none or several in progress ctx ends with the connection, or when
// every call in progress when the request came has ended.
type ElicitFunc func(ctx context.Context, req ElicitRequest) (ElicitResult, error)

// elicitation answers a server's elicitation/create. The SDK has checked
// the request (a flat object schema of primitives) and checks an accepted
// answer against the schema. URL mode is not offered, so a request in it
// is refused.
func (s *server) elicitation(req context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p := r.Params
	if p.Mode != "" && p.Mode != "form" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("elicitation mode %q is not supported: cordis offers form mode only", p.Mode)}
	}
	schema, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid elicitation/create requestedSchema: " + err.Error()}
	}
	ctx, done := s.elicitContext(req)
	defer done()
	log := s.m.opts.Logger.With("server", s.spec.Name)
	res, err := s.m.opts.Elicit(ctx, ElicitRequest{Server: s.spec.Name, Message: p.Message, RequestedSchema: schema})
	if err != nil || ctx.Err() != nil {
		log.Debug("MCP elicitation cancelled", "error", err, "context", ctx.Err())
		return &sdk.ElicitResult{Action: "cancel"}, nil
	}
	switch res.Action {
	case "accept":
		content := bytes.TrimSpace(res.Content)
		if len(content) == 0 || string(content) == "null" {
			return &sdk.ElicitResult{Action: "accept"}, nil
		}
		var fields map[string]any
		if content[0] != '{' || json.Unmarshal(content, &fields) != nil {
			log.Warn("MCP elicitation accepted with content that is not an object; cancelled", "content", string(content))
			return &sdk.ElicitResult{Action: "cancel"}, nil
		}
		return &sdk.ElicitResult{Action: "accept", Content: fields}, nil
	case "decline", "cancel":
		return &sdk.ElicitResult{Action: res.Action}, nil
	default:
		log.Warn("MCP elicitation answered with an unknown action; cancelled", "action", res.Action)
		return &sdk.ElicitResult{Action: "cancel"}, nil
	}
}

// elicitContext is the context of an elicitation (see ElicitFunc) and its
// cancel function. It ends with req, the context the SDK gives the
// server's request (it ends when the server cancels the request or the
// connection ends), and with the server.
func (s *server) elicitContext(req context.Context) (context.Context, context.CancelFunc) {
	s.mu.Lock()
	calls := slices.Collect(maps.Values(s.calls))
	s.mu.Unlock()
	base := s.life
	if len(calls) == 1 {
		base = calls[0]
	}
	ctx, cancel := context.WithCancel(base)
	stops := []func() bool{context.AfterFunc(req, cancel)}
	switch {
	case len(calls) == 1:
		stops = append(stops, context.AfterFunc(s.life, cancel))
	case len(calls) > 1:
		var left atomic.Int64
		left.Store(int64(len(calls)))
		for _, call := range calls {
			stops = append(stops, context.AfterFunc(call, func() {
				if left.Add(-1) == 0 {
					cancel()
				}
			}))
		}
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}
