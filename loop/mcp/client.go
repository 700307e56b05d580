package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// protocolVersion is the MCP revision cordis asks for. It is pinned to the
// last revision with the initialize handshake and session-wide list_changed
// notifications, which every server in use speaks; servers may answer with
// an older one.
const protocolVersion = "2025-11-25"

// supportedVersions are the revisions cordis accepts in a server's answer
// to initialize, newest first.
var supportedVersions = []string{protocolVersion, "2025-06-18", "2025-03-26", "2024-11-05"}

// maxMessageSize bounds one message from a server (a stdio line or an
// event's data), as the SSE reader does: a tool result with an image
// arrives in one message.
const maxMessageSize = 32 << 20

// errClosed matches the error of every request on a connection that has
// ended. The error's text says how it ended, as a phrase about the server
// ("closed its event stream").
var errClosed = errors.New("connection closed")

type connError struct{ error }

func (connError) Is(target error) bool { return target == errClosed }

// errBadAnswer marks an answer that could not be decoded: the server is
// alive, it just answered oddly.
var errBadAnswer = errors.New("malformed answer")

// A transport carries JSON-RPC messages between a client and one server.
type transport interface {
	// connect starts receiving: from then on the transport passes every
	// message of the server to c.receive, in the order of the stream that
	// carried it, and an ended connection to c.fail. ctx bounds the
	// connecting only.
	connect(ctx context.Context, c *client) error
	// send sends one message; id > 0 marks a request, whose answer the
	// transport may have to read itself (streamable HTTP). ctx bounds the
	// whole exchange. It may be called concurrently.
	send(ctx context.Context, msg []byte, id int64) error
	// opened is told the negotiated protocol version, after initialize.
	opened(version string)
	// close ends the connection.
	close()
}

// client is the client side of one MCP session: JSON-RPC requests matched
// to their answers by id, the handshake, paginated lists, answers to the
// server's requests (roots/list, ping), and the server's notifications,
// seen on the read path: a notification the server sends before an answer
// is seen before the caller gets that answer.
//
// It is hand-written rather than built on sourcegraph/jsonrpc2: over
// streamable HTTP a request's whole exchange is one HTTP round trip that
// must run concurrently with the others and end with the call's context,
// while jsonrpc2.Conn sends under one lock and ignores the context; it
// keeps the pending entry of an abandoned call until the connection ends;
// and it drops the connection on the first malformed message.
type client struct {
	t        transport
	log      *slog.Logger
	roots    []root
	onNotify func(method string) // called on the read path
	// server is the server's name as configured; elicit, when set, answers
	// its elicitation/create (and the capability is offered). Both are set
	// before connect.
	server string
	elicit ElicitFunc

	// life ends with the client; it bounds the messages the client sends
	// on its own (answers, cancellations).
	life      context.Context
	cancel    context.CancelFunc
	closeOnce sync.Once

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan *message
	// working are the contexts of the calls in progress that may elicit
	// (tools/call, prompts/get), by id.
	working map[int64]context.Context
	err     error         // why the connection ended (a connError)
	done    chan struct{} // closed when it ended
}

func newClient(t transport, log *slog.Logger, roots []string, onNotify func(method string)) *client {
	c := &client{t: t, log: log, roots: []root{}, onNotify: onNotify, pending: map[int64]chan *message{}, working: map[int64]context.Context{}, done: make(chan struct{})}
	for _, r := range roots {
		c.roots = append(c.roots, root{URI: (&url.URL{Scheme: "file", Path: r}).String(), Name: filepath.Base(r)})
	}
	c.life, c.cancel = context.WithCancel(context.Background())
	return c
}

// connect connects the transport and performs the handshake: initialize,
// a check of the version the server chose, notifications/initialized.
func (c *client) connect(ctx context.Context, version string) (*initializeResult, error) {
	if err := c.t.connect(ctx, c); err != nil {
		return nil, err
	}
	var res initializeResult
	params := initializeParams{
		ProtocolVersion: protocolVersion,
		ClientInfo:      implementation{Name: "cordis", Title: "cordis", Version: version},
	}
	if c.elicit != nil {
		params.Capabilities.Elicitation = &struct{}{}
	}
	err := c.call(ctx, "initialize", params, &res)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(supportedVersions, res.ProtocolVersion) {
		return nil, fmt.Errorf("the server speaks MCP revision %q, which cordis does not support (it supports %s)", res.ProtocolVersion, strings.Join(supportedVersions, ", "))
	}
	c.t.opened(res.ProtocolVersion)
	if err := c.notify(ctx, "notifications/initialized", struct{}{}); err != nil {
		return nil, err
	}
	return &res, nil
}

// close ends the connection: requests in progress fail.
func (c *client) close() {
	c.closeOnce.Do(func() {
		c.fail(errors.New("was shut down"))
		c.cancel()
		c.t.close()
	})
}

// fail records that the connection ended, and how (the first report
// wins), and returns the connection's error.
func (c *client) fail(how error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = connError{how}
		close(c.done)
	}
	return c.err
}

// failure is the connection's error once it has ended, or nil.
func (c *client) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// call sends a request and decodes its answer's result into result. An
// error answer is returned as a *rpcError. When ctx ends first, the server
// is told the request is cancelled and ctx's error is returned.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.nextID++
	id, ch := c.nextID, make(chan *message, 1)
	c.pending[id] = ch
	if method == "tools/call" || method == "prompts/get" {
		c.working[id] = ctx
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		delete(c.working, id)
		c.mu.Unlock()
	}()

	data, err := encode(message{ID: idJSON(id), Method: method}, params)
	if err != nil {
		return err
	}
	var m *message
	if err = c.t.send(ctx, data, id); err == nil {
		select {
		case m = <-ch:
		case <-ctx.Done():
		case <-c.done:
		}
	}
	if m == nil {
		select {
		case m = <-ch: // it came all the same (streamable HTTP: on another stream)
		default:
			return c.abandon(ctx, method, id, err)
		}
	}
	if m.Error != nil {
		return m.Error
	}
	if err := json.Unmarshal(m.Result, result); err != nil {
		return fmt.Errorf("%w to %s: %v", errBadAnswer, method, err)
	}
	return nil
}

// abandon explains why a request got no answer: the connection ended, ctx
// ended (the server is then told the request is cancelled), or sending
// failed with err.
func (c *client) abandon(ctx context.Context, method string, id int64, err error) error {
	if cerr := c.failure(); cerr != nil {
		return cerr
	}
	if ctx.Err() == nil {
		return err
	}
	if method != "initialize" { // which may not be cancelled
		reason := "the call was cancelled"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reason = "the call timed out"
		}
		go func() {
			if err := c.notify(c.life, "notifications/cancelled", cancelledParams{RequestID: id, Reason: reason}); err != nil {
				c.log.Debug("MCP cancellation not sent", "method", method, "error", err)
			}
		}()
	}
	return ctx.Err()
}

// notify sends a notification.
func (c *client) notify(ctx context.Context, method string, params any) error {
	if err := c.failure(); err != nil {
		return err
	}
	data, err := encode(message{Method: method}, params)
	if err != nil {
		return err
	}
	return c.t.send(ctx, data, 0)
}

// receive handles one message (or batch) from the server, on the
// transport's read path: an answer goes to its caller, a notification to
// onNotify, before receive returns; a request is answered on its own
// goroutine. It returns the id of the request it answered, or 0. A
// malformed message is logged and dropped.
func (c *client) receive(data []byte) (answered int64) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return 0
	}
	if data[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(data, &batch); err != nil {
			c.malformed(data, err)
			return 0
		}
		for _, one := range batch {
			if id := c.receive(one); id != 0 {
				answered = id
			}
		}
		return answered
	}
	m := new(message)
	if err := json.Unmarshal(data, m); err != nil {
		c.malformed(data, err)
		return 0
	}
	switch {
	case m.Method != "" && m.hasID():
		go c.answer(m)
	case m.Method != "":
		c.onNotify(m.Method)
	case m.hasID():
		id, err := strconv.ParseInt(string(m.ID), 10, 64)
		c.mu.Lock()
		ch, ok := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if err != nil || !ok {
			c.log.Debug("MCP answer to no pending request", "id", string(m.ID))
			return 0
		}
		ch <- m
		return id
	default:
		c.malformed(data, errors.New("neither a request, a notification nor an answer"))
	}
	return 0
}

func (c *client) malformed(data []byte, err error) {
	if len(data) > 200 {
		data = append(data[:200:200], "…"...)
	}
	c.log.Warn("MCP server sent a malformed message; dropped", "error", err, "message", string(data))
}

// answer answers a request of the server.
func (c *client) answer(req *message) {
	reply := message{ID: req.ID}
	var err error
	switch req.Method {
	case "ping":
		reply.Result = json.RawMessage("{}")
	case "roots/list":
		reply.Result, err = json.Marshal(rootsResult{Roots: c.roots})
	case "elicitation/create":
		if c.elicit == nil {
			reply.Error = &rpcError{Code: codeMethodNotFound, Message: "method not found: " + req.Method}
			break
		}
		var res *elicitResult
		if res, reply.Error = c.elicitation(req.Params); reply.Error == nil {
			reply.Result, err = json.Marshal(res)
		}
	default:
		reply.Error = &rpcError{Code: codeMethodNotFound, Message: "method not found: " + req.Method}
	}
	var data []byte
	if err == nil {
		data, err = encode(reply, nil)
	}
	if err == nil {
		err = c.t.send(c.life, data, 0)
	}
	if err != nil {
		c.log.Debug("MCP answer to the server not sent", "method", req.Method, "error", err)
	}
}

// list calls a list method page by page, following nextCursor, and
// passes each page to add. A server that repeats a cursor would be paged
// forever: the list stops there.
func (c *client) list(ctx context.Context, method string, add func(*listPage)) error {
	seen := map[string]bool{}
	var cursor string
	for {
		var page listPage
		if err := c.call(ctx, method, listParams{Cursor: cursor}, &page); err != nil {
			return err
		}
		add(&page)
		cursor = page.NextCursor
		if cursor == "" {
			return nil
		}
		if seen[cursor] {
			c.log.Warn("MCP server repeated a page cursor; the list ends there", "method", method, "cursor", cursor)
			return nil
		}
		seen[cursor] = true
	}
}

func (c *client) listTools(ctx context.Context) ([]*remoteTool, error) {
	var out []*remoteTool
	err := c.list(ctx, "tools/list", func(p *listPage) { out = append(out, p.Tools...) })
	return out, err
}

func (c *client) listPrompts(ctx context.Context) ([]*remotePrompt, error) {
	var out []*remotePrompt
	err := c.list(ctx, "prompts/list", func(p *listPage) { out = append(out, p.Prompts...) })
	return out, err
}
