package acp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// rpc is the part of *jsonrpc2.Conn the client needs; tests may fake it.
type rpc interface {
	Call(ctx context.Context, method string, params, result any, opts ...jsonrpc2.CallOption) error
	Notify(ctx context.Context, method string, params any, opts ...jsonrpc2.CallOption) error
}

// Client makes the agent's calls to the editor: session updates and the
// reverse requests (permission, fs, terminal). It is safe for concurrent
// use; writes are serialised by the connection, so the notifications of
// one goroutine reach the editor in the order they were sent.
type Client struct {
	rpc    rpc
	nextID atomic.Uint64
	// frames, when set (Serve sets it), writes encoded session/update
	// frames straight to the line stream: jsonrpc2's Notify would encode
	// the params three times (see notificationFrame).
	frames func([]byte) error

	mu   sync.RWMutex
	caps ClientCapabilities
}

// NewClient wraps a JSON-RPC connection.
func NewClient(conn rpc) *Client { return &Client{rpc: conn} }

// attach connects the server's client, made before the connection
// exists, to it: session updates go straight to the line stream under
// conn. The server calls it before it calls the agent.
func (c *Client) attach(conn *jsonrpc2.Conn, stream *lineStream) {
	c.rpc = conn
	c.frames = func(frames []byte) error { return stream.writeFrames(conn.DisconnectNotify(), frames) }
}

// Capabilities returns what the editor advertised in initialize.
func (c *Client) Capabilities() ClientCapabilities {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.caps
}

func (c *Client) setCapabilities(caps ClientCapabilities) {
	c.mu.Lock()
	c.caps = caps
	c.mu.Unlock()
}

// SessionUpdate sends one session/update notification; under a context
// from BatchUpdates it queues it instead.
func (c *Client) SessionUpdate(ctx context.Context, sessionID string, u SessionUpdate) error {
	n := SessionNotification{SessionID: sessionID, Update: u}
	if c.frames == nil {
		return c.rpc.Notify(context.WithoutCancel(ctx), MethodSessionUpdate, n)
	}
	frame, err := notificationFrame(MethodSessionUpdate, n)
	if err != nil {
		return err
	}
	if b, ok := ctx.Value(updateBatchKey{}).(*updateBatch); ok && b.client == c {
		return b.add(frame)
	}
	return c.frames(frame)
}

// batchBytes is how much a batch queues before it writes.
const batchBytes = 64 << 10

type updateBatchKey struct{}

type updateBatch struct {
	client *Client
	queued []byte
}

func (b *updateBatch) add(frame []byte) error {
	b.queued = append(b.queued, frame...)
	if len(b.queued) >= batchBytes {
		return b.flush()
	}
	return nil
}

func (b *updateBatch) flush() error {
	if len(b.queued) == 0 {
		return nil
	}
	err := b.client.frames(b.queued)
	b.queued = b.queued[:0]
	return err
}

// BatchUpdates returns a context under which this client's SessionUpdate
// queues its frames and writes them a batch at a time (64 KiB), and flush,
// which writes the rest. Replaying a long session on session/load sends
// thousands of updates: one write each is as many writes to the pipe and
// as many wake-ups of the editor's reader. The frames and their order are
// those SessionUpdate writes; the editor sees them later, so call flush
// before answering the request they belong to. The context is for one
// goroutine, and only for calls made before flush returns.
func (c *Client) BatchUpdates(ctx context.Context) (context.Context, func() error) {
	b := &updateBatch{client: c}
	return context.WithValue(ctx, updateBatchKey{}, b), b.flush
}

// call sends a request with an id the client picks, so that cancelling ctx
// can name it in a $/cancel_request. A late answer is dropped by jsonrpc2.
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	id := jsonrpc2.ID{Str: "cordis-" + strconv.FormatUint(c.nextID.Add(1), 10), IsString: true}
	err := c.rpc.Call(ctx, method, params, result, jsonrpc2.PickID(id))
	if err != nil && ctx.Err() != nil {
		_ = c.rpc.Notify(context.WithoutCancel(ctx), MethodCancelRequest, map[string]any{"requestId": id.Str})
		return ctx.Err()
	}
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		e := &Error{Code: rpcErr.Code, Message: rpcErr.Message}
		if rpcErr.Data != nil {
			e.Data = *rpcErr.Data // the peer's details, for whoever reports it
		}
		return e
	}
	return err
}

// RequestPermission asks the user to approve a tool call.
func (c *Client) RequestPermission(ctx context.Context, req *RequestPermissionRequest) (*RequestPermissionResponse, error) {
	var resp RequestPermissionResponse
	if err := c.call(ctx, MethodSessionRequestPermission, req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// CreateElicitation asks the user for input (elicitation/create). Send it
// only when the client advertised the mode (ElicitationForm,
// ElicitationURL).
func (c *Client) CreateElicitation(ctx context.Context, req *CreateElicitationRequest) (*CreateElicitationResponse, error) {
	var resp CreateElicitationResponse
	if err := c.call(ctx, MethodElicitationCreate, req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// CompleteElicitation tells the client that the URL-mode elicitation id
// is done (elicitation/complete), so it can stop waiting on it.
func (c *Client) CompleteElicitation(ctx context.Context, id string) error {
	return c.rpc.Notify(context.WithoutCancel(ctx), MethodElicitationComplete, CompleteElicitationNotification{ElicitationID: id})
}

// ReadTextFile reads a file through the editor (its unsaved buffer view).
func (c *Client) ReadTextFile(ctx context.Context, req *ReadTextFileRequest) (string, error) {
	var resp ReadTextFileResponse
	if err := c.call(ctx, MethodFSReadTextFile, req, &resp); err != nil {
		return "", err
	}
	return resp.Content, nil
}

// WriteTextFile writes a file through the editor. The result may be null
// or {}; both are accepted.
func (c *Client) WriteTextFile(ctx context.Context, req *WriteTextFileRequest) error {
	var ignored json.RawMessage
	return c.call(ctx, MethodFSWriteTextFile, req, &ignored)
}

// CreateTerminal starts a command in an editor terminal.
func (c *Client) CreateTerminal(ctx context.Context, req *CreateTerminalRequest) (string, error) {
	var resp CreateTerminalResponse
	if err := c.call(ctx, MethodTerminalCreate, req, &resp); err != nil {
		return "", err
	}
	return resp.TerminalID, nil
}

// TerminalOutput reads a terminal's output so far.
func (c *Client) TerminalOutput(ctx context.Context, req *TerminalRequest) (*TerminalOutputResponse, error) {
	var resp TerminalOutputResponse
	if err := c.call(ctx, MethodTerminalOutput, req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// WaitForTerminalExit blocks until the terminal's command exits.
func (c *Client) WaitForTerminalExit(ctx context.Context, req *TerminalRequest) (*TerminalExitStatus, error) {
	var resp TerminalExitStatus
	if err := c.call(ctx, MethodTerminalWaitForExit, req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// KillTerminal kills the command; the terminal stays valid.
func (c *Client) KillTerminal(ctx context.Context, req *TerminalRequest) error {
	var ignored json.RawMessage
	return c.call(ctx, MethodTerminalKill, req, &ignored)
}

// ReleaseTerminal frees the terminal (killing its command if needed).
func (c *Client) ReleaseTerminal(ctx context.Context, req *TerminalRequest) error {
	var ignored json.RawMessage
	return c.call(ctx, MethodTerminalRelease, req, &ignored)
}
