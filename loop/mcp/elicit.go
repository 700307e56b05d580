package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
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

// elicitation answers elicitation/create: an error answer for a malformed
// request (or one in URL mode, which is not offered), else the answer of
// c.elicit.
func (c *client) elicitation(params json.RawMessage) (*elicitResult, *rpcError) {
	var p elicitParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "invalid elicitation/create params: " + err.Error()}
	}
	if p.Mode != "" && p.Mode != "form" {
		return nil, &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("elicitation mode %q is not supported: cordis offers form mode only", p.Mode)}
	}
	if p.Message == nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "invalid elicitation/create params: message is missing"}
	}
	if err := checkFormSchema(p.RequestedSchema); err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "invalid elicitation/create requestedSchema: " + err.Error()}
	}
	ctx, done := c.elicitContext()
	defer done()
	res, err := c.elicit(ctx, ElicitRequest{Server: c.server, Message: *p.Message, RequestedSchema: p.RequestedSchema})
	if err != nil || ctx.Err() != nil {
		c.log.Debug("MCP elicitation cancelled", "error", err, "context", ctx.Err())
		return &elicitResult{Action: "cancel"}, nil
	}
	switch res.Action {
	case "accept":
		content := bytes.TrimSpace(res.Content)
		if len(content) == 0 || string(content) == "null" {
			return &elicitResult{Action: "accept"}, nil
		}
		if content[0] != '{' || !json.Valid(content) {
			c.log.Warn("MCP elicitation accepted with content that is not an object; cancelled", "content", string(content))
			return &elicitResult{Action: "cancel"}, nil
		}
		return &elicitResult{Action: "accept", Content: content}, nil
	case "decline", "cancel":
		return &elicitResult{Action: res.Action}, nil
	default:
		c.log.Warn("MCP elicitation answered with an unknown action; cancelled", "action", res.Action)
		return &elicitResult{Action: "cancel"}, nil
	}
}

// checkFormSchema checks that a requestedSchema is a flat object schema:
// type object, and properties that are objects of a primitive type (or
// array, a multi-select enum).
func checkFormSchema(raw json.RawMessage) error {
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(raw) == 0 {
		return fmt.Errorf("missing")
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	if s.Type != "object" {
		return fmt.Errorf("type is %q, not object", s.Type)
	}
	for name, prop := range s.Properties {
		var ps struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(prop, &ps); err != nil {
			return fmt.Errorf("property %q: %v", name, err)
		}
		switch ps.Type {
		case "string", "number", "integer", "boolean", "array":
		default:
			return fmt.Errorf("property %q has type %q, not a primitive", name, ps.Type)
		}
	}
	return nil
}

// elicitContext is the context of an elicitation (see ElicitFunc) and its
// cancel function.
func (c *client) elicitContext() (context.Context, context.CancelFunc) {
	c.mu.Lock()
	calls := slices.Collect(maps.Values(c.working))
	c.mu.Unlock()
	if len(calls) == 1 {
		ctx, cancel := context.WithCancel(calls[0])
		stop := context.AfterFunc(c.life, cancel)
		return ctx, func() { stop(); cancel() }
	}
	ctx, cancel := context.WithCancel(c.life)
	if len(calls) == 0 {
		return ctx, cancel
	}
	var left atomic.Int64
	left.Store(int64(len(calls)))
	stops := make([]func() bool, len(calls))
	for i, call := range calls {
		stops[i] = context.AfterFunc(call, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}
