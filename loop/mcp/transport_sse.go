package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/cordis-agent/cordis/llm/sse"
)

// sseTransport is the HTTP+SSE transport of MCP 2024-11-05: a GET opens an
// event stream whose first event, endpoint, names the URL to POST messages
// to; every message of the server, answers included, arrives on that
// stream as a message event.
type sseTransport struct {
	url      string
	hc       *http.Client
	endpoint string // set by connect

	// life ends with the connection. The stream lives on it rather than
	// on the handshake's context, which the handshake timeout cancels.
	life   context.Context
	cancel context.CancelFunc
}

func newSSETransport(url string, hc *http.Client) *sseTransport {
	t := &sseTransport{url: url, hc: hc}
	t.life, t.cancel = context.WithCancel(context.Background())
	return t
}

// connect opens the stream and waits, within ctx, for its endpoint event.
func (t *sseTransport) connect(ctx context.Context, c *client) error {
	stop := context.AfterFunc(ctx, t.cancel)
	body, r, err := t.open()
	if !stop() { // ctx ended: so did the stream
		if err == nil {
			body.Close()
		}
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	go func() {
		defer body.Close()
		_, _, err := readEvents(r, c, 0)
		if err != nil {
			c.fail(fmt.Errorf("broke its event stream: %v", err))
		} else {
			c.fail(errors.New("closed its event stream"))
		}
	}()
	return nil
}

func (t *sseTransport) open() (io.ReadCloser, *sse.Reader, error) {
	base, err := url.Parse(t.url)
	if err != nil {
		return nil, nil, err
	}
	req, err := http.NewRequestWithContext(t.life, http.MethodGet, t.url, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := t.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (io.ReadCloser, *sse.Reader, error) {
		resp.Body.Close()
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return fail(statusError(resp.Status, body))
	}
	r := sse.NewReader(resp.Body)
	ev, err := r.Next()
	switch {
	case err == io.EOF:
		return fail(errors.New("the event stream ended before its endpoint event"))
	case err != nil:
		return fail(err)
	case ev.Name != "endpoint":
		return fail(fmt.Errorf("the event stream began with %q, not with an endpoint event", ev.Name))
	}
	u, err := base.Parse(strings.TrimSpace(string(ev.Data)))
	if err != nil {
		return fail(fmt.Errorf("bad endpoint %q: %v", ev.Data, err))
	}
	// The editor's headers (credentials) go to the endpoint too: it must
	// be on the server's origin.
	if u.Scheme != base.Scheme || u.Host != base.Host {
		return fail(fmt.Errorf("the endpoint %s is not on the server's origin", u.Redacted()))
	}
	t.endpoint = u.String()
	return resp.Body, r, nil
}

// send POSTs the message to the endpoint; answers come on the stream.
func (t *sseTransport) send(ctx context.Context, msg []byte, _ int64) error {
	ctx, cancel := within(ctx, t.life)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return statusError(resp.Status, body)
	}
	return nil
}

func (t *sseTransport) opened(string) {}

func (t *sseTransport) close() { t.cancel() }
