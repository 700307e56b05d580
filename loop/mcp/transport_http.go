package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/llm/sse"
)

// streamableTransport is MCP's streamable HTTP transport (2025-03-26 and
// later). Every message is a POST to the endpoint; a request's answer comes
// back in the POST's response, as a JSON body or as an event stream that
// may carry the server's notifications and requests before the answer. The
// session id the server gives with its answer to initialize goes on every
// later request, and so does the negotiated version. The server may offer
// a standalone GET event stream for messages outside of requests
// (list_changed); close ends the session with a DELETE.
type streamableTransport struct {
	url   string
	hc    *http.Client
	grace time.Duration // bounds the DELETE of close
	log   *slog.Logger
	c     *client

	// life ends with the connection, and with it the GET stream and the
	// POSTs in flight.
	life   context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	session string
	version string
}

func newStreamableTransport(url string, hc *http.Client, grace time.Duration, log *slog.Logger) *streamableTransport {
	t := &streamableTransport{url: url, hc: hc, grace: grace, log: log}
	t.life, t.cancel = context.WithCancel(context.Background())
	return t
}

func (t *streamableTransport) connect(_ context.Context, c *client) error {
	t.c = c
	return nil
}

func (t *streamableTransport) opened(version string) {
	t.mu.Lock()
	t.version = version
	t.mu.Unlock()
	go t.listen()
}

func (t *streamableTransport) newRequest(ctx context.Context, method string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.url, r)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session != "" {
		req.Header.Set("Mcp-Session-Id", t.session)
	}
	if t.version != "" {
		req.Header.Set("MCP-Protocol-Version", t.version)
	}
	return req, nil
}

// send POSTs the message; for a request (id > 0) it reads the answer from
// the response and passes it, with whatever the server sent before it, to
// the client.
func (t *streamableTransport) send(ctx context.Context, msg []byte, id int64) error {
	ctx, cancel := within(ctx, t.life)
	defer cancel()
	req, err := t.newRequest(ctx, http.MethodPost, msg)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := t.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.mu.Lock()
		if t.session == "" {
			t.session = sid
		}
		t.mu.Unlock()
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return t.refused(resp, id)
	}
	if id == 0 {
		return nil // a notification or an answer: accepted (202)
	}
	answered := false
	switch ct := mediaType(resp.Header); ct {
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxMessageSize+1))
		if err != nil {
			return err
		}
		if len(body) > maxMessageSize {
			return fmt.Errorf("the server's answer is longer than %d MiB", maxMessageSize>>20)
		}
		answered = t.c.receive(body) == id
	case "text/event-stream":
		_, answered, err = readEvents(sse.NewReader(resp.Body), t.c, id)
		if err != nil {
			return err
		}
	default:
		return fmt.Errorf("the server answered with content type %q", ct)
	}
	if !answered {
		return errors.New("the server ended its response without an answer")
	}
	return nil
}

// refused turns an error status into the request's error. A JSON-RPC
// error in the body is the server's answer; 404 on a session means the
// server ended the session (it expired, or the server restarted): the
// connection is over.
func (t *streamableTransport) refused(resp *http.Response, id int64) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if id > 0 && json.Valid(body) && t.c.receive(body) == id {
		return nil
	}
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	if resp.StatusCode == http.StatusNotFound && session != "" {
		return t.c.fail(fmt.Errorf("ended the MCP session (HTTP %s)", resp.Status))
	}
	return statusError(resp.Status, body)
}

// listen keeps the standalone GET stream open while the connection lives.
// A stream that ends is opened again, after a pause that grows while the
// streams carry nothing, so that a server that closes it at once is not
// polled hard.
func (t *streamableTransport) listen() {
	pause := time.Second
	for {
		got, again := t.listenOnce()
		if !again {
			return
		}
		if got {
			pause = time.Second
		} else {
			pause = min(2*pause, time.Minute)
		}
		select {
		case <-t.life.Done():
			return
		case <-time.After(pause):
		}
	}
}

// listenOnce reads the GET stream to its end. It reports whether the
// stream carried messages and whether to open it again: not when the
// connection is closed, nor when the server offers no stream (405, or
// another client error).
func (t *streamableTransport) listenOnce() (got, again bool) {
	req, err := t.newRequest(t.life, http.MethodGet, nil)
	if err != nil {
		return false, false
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := t.hc.Do(req)
	if err != nil {
		return false, t.life.Err() == nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || mediaType(resp.Header) != "text/event-stream" {
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.log.Debug("MCP server offers no event stream", "status", resp.Status, "contentType", resp.Header.Get("Content-Type"))
		}
		return false, resp.StatusCode >= 500
	}
	n, _, err := readEvents(sse.NewReader(resp.Body), t.c, 0)
	if err != nil && t.life.Err() == nil {
		t.log.Debug("MCP event stream broke", "error", err)
	}
	return n > 0, t.life.Err() == nil
}

// close stops the GET stream and the requests in flight, and ends the
// session on the server. A server that does not let clients end sessions
// answers 405, which is fine.
func (t *streamableTransport) close() {
	t.cancel()
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	if session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.grace)
	defer cancel()
	req, err := t.newRequest(ctx, http.MethodDelete, nil)
	if err != nil {
		return
	}
	resp, err := t.hc.Do(req)
	if err != nil {
		t.log.Debug("MCP session not ended", "error", err)
		return
	}
	resp.Body.Close()
}

// readEvents passes the JSON-RPC messages of an event stream to c, in
// order, up to the answer to the request id (when id > 0) or the end of
// the stream. It returns how many messages it passed and whether the
// answer was among them. Events of other types, and events without data
// (which only set an event id), are skipped.
func readEvents(r *sse.Reader, c *client, id int64) (n int, answered bool, err error) {
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return n, false, nil
		}
		if err != nil {
			return n, false, err
		}
		if (ev.Name != "" && ev.Name != "message") || len(bytes.TrimSpace(ev.Data)) == 0 {
			continue
		}
		n++
		if got := c.receive(ev.Data); id > 0 && got == id {
			return n, true, nil
		}
	}
}

// within derives from ctx a context that also ends with life, so that
// closing a connection aborts its requests in flight.
func within(ctx, life context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(life, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

func mediaType(h http.Header) string {
	t, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// statusError describes an HTTP error status, with the first line of the
// body when there is one.
func statusError(status string, body []byte) error {
	detail, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
	if r := []rune(detail); len(r) > 200 {
		detail = string(r[:200]) + "…"
	}
	if detail == "" {
		return fmt.Errorf("HTTP %s", status)
	}
	return fmt.Errorf("HTTP %s: %s", status, detail)
}
