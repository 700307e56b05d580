package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cordis-agent/cordis/internal/proc"
)

// maxMessageSize bounds one message from a server (a stdio line, an
// event): a tool result with an image arrives in one message.
const maxMessageSize = 32 << 20

// stdioTransport connects the SDK's client to a server process started by
// package proc (an owned process group, which the SDK's CommandTransport
// cannot run): one JSON-RPC message per line on its standard input and
// output.
//
// It is not the SDK's IOTransport because that one ends the connection at
// the first line that is not JSON, and some servers print stray lines
// (banners, logs) to stdout; here such a line is logged and dropped.
type stdioTransport struct {
	p    *proc.Process
	log  *slog.Logger
	seen func(method string) // see watchNotices
}

func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &stdioConn{t: t, lines: make(chan []byte), closed: make(chan struct{})}
	go c.scan()
	return c, nil
}

// stdioConn is the sdk.Connection of a stdioTransport. Read is called by
// one goroutine at a time (the SDK's read loop); Write and Close may be
// called concurrently.
type stdioConn struct {
	t *stdioTransport

	lines   chan []byte // from scan; closed when the output ends
	scanErr error       // why it ended; set before lines is closed
	queue   []jsonrpc.Message

	wmu       sync.Mutex // one message at a time on stdin
	closeOnce sync.Once
	closed    chan struct{}
}

// scan reads the server's output line by line until it ends or the
// connection is closed.
func (c *stdioConn) scan() {
	defer close(c.lines)
	sc := bufio.NewScanner(c.t.p.Stdout())
	sc.Buffer(make([]byte, 0, 64<<10), maxMessageSize)
	for sc.Scan() {
		select {
		case c.lines <- bytes.Clone(sc.Bytes()):
		case <-c.closed:
			return
		}
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		c.scanErr = fmt.Errorf("sent a message longer than %d MiB", maxMessageSize>>20)
	case err != nil:
		c.scanErr = fmt.Errorf("broke its output: %v", err)
	default:
		c.scanErr = io.EOF
	}
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for len(c.queue) == 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case line, ok := <-c.lines:
			if !ok {
				return nil, c.scanErr
			}
			c.queue = c.decode(line)
		}
	}
	msg := c.queue[0]
	c.queue = c.queue[1:]
	return msg, nil
}

// decode turns a line into the messages it holds (a batch holds several),
// dropping what is not a message. A list_changed notification is reported
// here, on the read path, before any message after it is read.
func (c *stdioConn) decode(line []byte) []jsonrpc.Message {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	raws := []json.RawMessage{line}
	if line[0] == '[' {
		if err := json.Unmarshal(line, &raws); err != nil {
			c.malformed(line, err)
			return nil
		}
	}
	var out []jsonrpc.Message
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			c.malformed(raw, err)
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() {
			c.t.seen(req.Method)
		}
		out = append(out, msg)
	}
	return out
}

func (c *stdioConn) malformed(data []byte, err error) {
	if len(data) > 200 {
		data = append(data[:200:200], "…"...)
	}
	c.t.log.Warn("MCP server sent a malformed message; dropped", "error", err, "message", string(data))
}

// Write writes the message as one line. A server that stops reading
// blocks it until the connection is closed.
func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.t.p.Stdin().Write(append(data, '\n'))
	return err
}

// Close ends the server's input, which tells it to exit; the server's
// stop does the rest.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.t.p.Stdin().Close()
	})
	return nil
}

func (c *stdioConn) SessionID() string { return "" }
