package acptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/cordis-agent/cordis/acp"
	"github.com/sourcegraph/jsonrpc2"
)

// Options configure an Editor made by Connect: an editor that reports
// instead of failing a test, so that a harness can run it outside go test
// and collect its problems.
type Options struct {
	// Name names the Editor's transcript file (CORDIS_ACP_TRANSCRIPT_DIR).
	Name string
	// Problem receives everything a test Editor would fail the test with:
	// a stdout line that is not a JSON-RPC frame, an undecodable frame, an
	// answer to a request the editor did not make. Required.
	Problem func(string)
	// Tap, when set, sees every JSON-RPC frame exactly as written on the
	// wire, in wire order: the agent's on the read goroutine before
	// jsonrpc2 dispatches it (so a tap may act on a frame, such as sending
	// session/cancel, before the frame's request is answered or its
	// response returned), the editor's just before they are written (under
	// the write lock, so a tap must not write). A tap must not block.
	Tap func(Frame)
	// Serve, when set, receives the agent's requests on the read
	// goroutine in arrival order (instead of the On* handlers, which each
	// run on their own goroutine). A request Serve cannot answer at once
	// (one whose answer waits for a process, or is held while other steps
	// run) is handed to a goroutine that replies later; while Serve runs,
	// no further frame is read.
	Serve func(*Request)
}

// Connect makes an Editor of the agent whose output is r and whose input
// is w, such as a process's stdout and stdin; the caller owns the process.
// End it with CloseWrite (the agent's input closes, as when an editor
// quits), wait for Done, then Close.
func Connect(r io.Reader, w io.WriteCloser, opts Options) *Editor {
	// A response no Call waits for: jsonrpc2 alone would only log it.
	unmatched := jsonrpc2.OnRecv(func(req *jsonrpc2.Request, resp *jsonrpc2.Response) {
		if req == nil && resp != nil {
			opts.Problem(fmt.Sprintf("acptest: the agent answered a request the editor did not make: id %s", resp.ID))
		}
	})
	e := newEditor(r, w, opts, unmatched)
	e.shutdown = sync.OnceFunc(func() {
		e.CloseWrite()
		<-e.Done()
	})
	return e
}

// CloseWrite closes the agent's input. Frames the editor writes afterwards
// (late replies) are dropped without being tapped.
func (e *Editor) CloseWrite() error { return e.str.closeWrite() }

// Done is closed when the agent's output has ended and every frame before
// the end has been dispatched.
func (e *Editor) Done() <-chan struct{} { return e.conn.DisconnectNotify() }

// Err returns the error that ended reading the agent's output, other than
// its end (nil after a clean end of file).
func (e *Editor) Err() error { return e.str.err() }

// Request is one request of the agent, answered exactly once with Reply.
type Request struct {
	Method string
	Params json.RawMessage

	ctx     context.Context
	conn    *jsonrpc2.Conn
	id      jsonrpc2.ID
	replied sync.Once
}

// Reply answers the request with result, or with err when it is not nil:
// an *acp.Error keeps its code and message, any other error is an internal
// error. Only the first Reply is sent; a reply after the editor closed the
// agent's input is dropped.
func (r *Request) Reply(result any, err error) {
	r.replied.Do(func() {
		if err == nil {
			r.conn.Reply(r.ctx, r.id, result)
			return
		}
		rpcErr := &jsonrpc2.Error{Code: acp.CodeInternalError, Message: err.Error()}
		if ae := (*acp.Error)(nil); errors.As(err, &ae) {
			rpcErr.Code, rpcErr.Message = ae.Code, ae.Message
			if ae.Data != nil {
				rpcErr.SetError(ae.Data) // an editor's details, as Zed sends them
			}
		}
		r.conn.ReplyWithError(r.ctx, r.id, rpcErr)
	})
}
