package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
)

// editorTransport carries the requests of an http or sse server: it adds
// the editor's headers to those that go to the server's origin, ends every
// request when the server stops (the SDK sends a call's POST with the
// call's context, so a server slow to answer would otherwise hold up
// Close), and watches event streams for list_changed notifications (see
// bodyWatcher).
//
// With sameOriginOnly (sse), a request to another origin is refused: the
// 2024-11-05 transport POSTs to whatever endpoint the server's stream
// names, and the editor's headers (credentials) must not follow it there.
type editorTransport struct {
	base           http.RoundTripper
	origin         *url.URL
	headers        []Header
	sameOriginOnly bool
	life           context.Context // the server's
	seen           func(method string)
}

func (t *editorTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != t.origin.Scheme || r.URL.Host != t.origin.Host {
		if t.sameOriginOnly {
			return nil, fmt.Errorf("the endpoint %s is not on the server's origin", r.URL.Redacted())
		}
		return t.base.RoundTrip(r)
	}
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for _, h := range t.headers {
			r.Header.Set(h.Name, h.Value)
		}
	}
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(t.life, cancel)
	release := func() {
		stop()
		cancel()
	}
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		release()
		return nil, err
	}
	w := &bodyWatcher{ReadCloser: resp.Body, release: release}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/event-stream" {
		w.seen = t.seen
	}
	resp.Body = w
	return resp, nil
}

// listChanged are the notifications that mark a server's lists stale.
var listChanged = []string{"notifications/tools/list_changed", "notifications/prompts/list_changed"}

const longestNotice = len("notifications/prompts/list_changed")

// bodyWatcher is a response body that releases its request's context
// when closed and, with seen set (event streams), reports the list_changed
// notifications named in the stream as its bytes are read, before the SDK
// decodes the messages that follow them. (The SDK runs notification
// handlers on a goroutine of their own, which may run after the caller got
// the answer that followed the notification; the list would then be
// re-listed one model request late.) A name that appears inside some other
// message costs one needless re-list.
type bodyWatcher struct {
	io.ReadCloser
	release func()
	seen    func(method string)
	// tail is the end of what was read before, so that a name split
	// between two reads is found.
	tail []byte
}

func (w *bodyWatcher) Close() error {
	err := w.ReadCloser.Close()
	w.release()
	return err
}

func (w *bodyWatcher) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	if n > 0 && w.seen != nil {
		buf := append(w.tail, p[:n]...)
		for _, m := range listChanged {
			if bytes.Contains(buf, []byte(m)) {
				w.seen(m)
			}
		}
		keep := min(len(buf), longestNotice-1)
		w.tail = append(w.tail[:0:0], buf[len(buf)-keep:]...)
	}
	return n, err
}
