package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ElicitRequest is a server's elicitation (elicitation/create): in form
// mode it asks the user for the fields of RequestedSchema, in URL mode to
// open URL (out of band: what the user enters there never passes through
// cordis).
type ElicitRequest struct {
	// Server is the name of the server that asks, as the editor configured
	// it.
	Server string
	// Mode is "form" or "url".
	Mode string
	// Message says what is asked and why.
	Message string
	// RequestedSchema is the server's schema, passed through (form mode):
	// an object schema whose properties are primitives (string, number,
	// integer, boolean, or an array for a multi-select enum).
	RequestedSchema json.RawMessage
	// URL is the page to open (URL mode): an absolute http or https URL.
	URL string
	// ElicitationID is the server's id of a URL elicitation, which its
	// completion notification names (see Options.ElicitationComplete).
	ElicitationID string
}

// ElicitResult is the user's answer.
type ElicitResult struct {
	// Action is "accept", "decline" or "cancel"; any other answers
	// "cancel". In URL mode accept means the user agreed to open the URL.
	Action string
	// Content is the accepted fields, a JSON object (only with accept, in
	// form mode; ignored in URL mode).
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

// elicitRequest is the request of a server's elicitation/create params.
func elicitRequest(server string, p *sdk.ElicitParams) ElicitRequest {
	return ElicitRequest{Server: server, Mode: cmp.Or(p.Mode, "form"), Message: p.Message, URL: p.URL, ElicitationID: p.ElicitationID}
}

// elicitation answers a server's elicitation/create. The SDK has checked
// the request (a flat object schema of primitives in form mode, a URL and
// no schema in URL mode, no other mode) and checks an accepted form
// answer against the schema. A mode the editor cannot show is refused
// with -32602, as MCP asks of a mode the client did not declare, and the
// user is told (Options.Unshown).
func (s *server) elicitation(req context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	opts := &s.m.opts
	er := elicitRequest(s.spec.Name, r.Params)
	ask := opts.Elicit
	switch er.Mode {
	case "form":
		schema, err := json.Marshal(r.Params.RequestedSchema)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid elicitation/create requestedSchema: " + err.Error()}
		}
		er.RequestedSchema = schema
	case "url":
		ask = opts.ElicitURL
		if err := checkElicitURL(er); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid elicitation/create: " + err.Error()}
		}
	default:
		ask = nil
	}
	if ask == nil {
		s.unshown(er)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("elicitation mode %q is not supported: the editor cannot show it, so the user was not asked", er.Mode)}
	}
	if er.Mode == "url" {
		s.mu.Lock()
		s.urlWaiting[er.ElicitationID] = true
		s.mu.Unlock()
	}
	ctx, done := s.elicitContext(req)
	defer done()
	log := s.m.opts.Logger.With("server", s.spec.Name)
	res, err := ask(ctx, er)
	if err != nil || ctx.Err() != nil {
		log.Debug("MCP elicitation cancelled", "error", err, "context", ctx.Err())
		res = ElicitResult{Action: "cancel"}
	}
	if er.Mode == "url" {
		if res.Action != "accept" {
			s.mu.Lock()
			delete(s.urlWaiting, er.ElicitationID)
			s.mu.Unlock()
		}
		switch res.Action {
		case "accept", "decline", "cancel":
			return &sdk.ElicitResult{Action: res.Action}, nil
		}
		log.Warn("MCP elicitation answered with an unknown action; cancelled", "action", res.Action)
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

// maxElicitURL caps the URL of a URL elicitation: a sign-in or consent
// page's address, with its query, fits many times over; a longer one
// would only burden the editor or hide its end from the user.
const maxElicitURL = 8 << 10

// checkElicitURL refuses a URL elicitation the editor must not be asked
// to open: no id to complete it by, a URL that is not absolute http(s)
// (a file:, javascript: or data: URL is no web page to visit), or one
// that misleads the user about where it leads: a user part before the
// host (https://accounts.example.com@evil.example/), a control or
// invisible format character (a right-to-left override), or one longer
// than maxElicitURL.
func checkElicitURL(er ElicitRequest) error {
	if er.ElicitationID == "" {
		return errors.New("elicitationId is required in URL mode")
	}
	if len(er.URL) > maxElicitURL {
		return fmt.Errorf("the url is %d bytes long; cordis passes on at most %d", len(er.URL), maxElicitURL)
	}
	if i := strings.IndexFunc(er.URL, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }); i >= 0 {
		return fmt.Errorf("url %q has a control or invisible character", er.URL)
	}
	u, err := url.Parse(er.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("url %q is not an absolute http or https URL", er.URL)
	}
	if u.User != nil {
		return fmt.Errorf("url %q has a user part before its host, which would mislead about where it leads", er.URL)
	}
	return nil
}

// unshown tells Options.Unshown of an elicitation the user was not
// asked.
func (s *server) unshown(er ElicitRequest) {
	s.m.opts.Logger.Info("MCP elicitation refused: its mode is not offered", "server", s.spec.Name, "mode", er.Mode)
	if f := s.m.opts.Unshown; f != nil {
		f(er)
	}
}

// elicitationComplete passes on a server's
// notifications/elicitation/complete for a URL elicitation the user was
// asked and did not decline, once.
func (s *server) elicitationComplete(_ context.Context, r *sdk.ElicitationCompleteNotificationRequest) {
	if r.Params == nil {
		return
	}
	id := r.Params.ElicitationID
	s.mu.Lock()
	waiting := s.urlWaiting[id]
	delete(s.urlWaiting, id)
	s.mu.Unlock()
	if waiting && s.m.opts.ElicitationComplete != nil {
		s.m.opts.ElicitationComplete(s.spec.Name, id)
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
