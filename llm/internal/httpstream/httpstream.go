package httpstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/internal/redact"
	"github.com/cordis-agent/cordis/llm/internal/retry"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// errIdleTimeout is the cancellation cause when a stream goes quiet.
var errIdleTimeout = errors.New("stream idle timeout")

// Client opens streams.
type Client struct {
	HTTP   *http.Client
	Logger *slog.Logger
	// IdleTimeout aborts an attempt that receives nothing for this long,
	// before or after the headers; 0 disables it.
	IdleTimeout time.Duration
	// Provider prefixes log messages ("anthropic request").
	Provider string
}

// ErrorFunc classifies a non-200 response from its status, headers and (up
// to 1 MiB of) body.
type ErrorFunc func(resp *http.Response, body []byte) *llm.Error

// Open sends the request built by newRequest (which must use the ctx it is
// given) and returns the open stream on HTTP 200. On an HTTP error it
// returns the response too (body already closed) so retry headers can be
// read. Errors before the stream started are *llm.Error values marked
// retryable, except cancellation of ctx, which returns an error wrapping
// ctx.Err(). secret is scrubbed from every message.
func (c *Client) Open(ctx context.Context, newRequest func(ctx context.Context) (*http.Request, error), secret string, classify ErrorFunc) (*Stream, *http.Response, error) {
	attemptCtx, cancel := context.WithCancelCause(ctx)
	idle := newIdleTimer(c.IdleTimeout, func() { cancel(errIdleTimeout) })
	release := func() { idle.stop(); cancel(nil) }
	idleFired := func() bool { return errors.Is(context.Cause(attemptCtx), errIdleTimeout) }

	req, err := newRequest(attemptCtx)
	if err != nil {
		release()
		return nil, nil, &llm.Error{Kind: llm.ErrInvalid, Message: "building request: " + err.Error(), Err: err}
	}
	c.Logger.Debug(c.Provider+" request", "method", req.Method, "url", req.URL.String(),
		"bytes", req.ContentLength, "headers", redact.Headers(req.Header))

	resp, err := c.HTTP.Do(req)
	if err != nil {
		fired := idleFired()
		release()
		return nil, nil, c.failedBeforeStream(ctx, fired, err, secret, "sending request")
	}
	c.Logger.Debug(c.Provider+" response", "status", resp.StatusCode, "headers", redact.Headers(resp.Header))

	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		release()
		apiErr := classify(resp, body)
		apiErr.Message = redact.Secret(apiErr.Message, secret)
		c.Logger.Debug(c.Provider+" error response", "status", resp.StatusCode, "kind", apiErr.Kind, "message", apiErr.Message)
		return nil, resp, apiErr
	}

	s := &Stream{body: resp.Body, idle: idle, release: release, secret: secret, timeout: c.IdleTimeout, idleFired: idleFired}
	s.buffered = bufio.NewReader(readFunc(s.read))
	// A connection that fails before the first byte streamed nothing to the
	// user, so it is still safe to retry.
	if _, err := s.buffered.Peek(1); err != nil {
		fired := idleFired()
		s.Close()
		return nil, nil, c.failedBeforeStream(ctx, fired, err, secret, "waiting for the stream to start")
	}
	return s, resp, nil
}

func (c *Client) failedBeforeStream(ctx context.Context, idleFired bool, err error, secret, phase string) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %s: %w", c.Provider, phase, ctx.Err())
	case idleFired:
		return &llm.Error{Kind: llm.ErrTimeout, Retryable: true, Err: err,
			Message: fmt.Sprintf("%s: nothing received for %s", phase, c.IdleTimeout)}
	}
	e := retry.TransportError(err)
	e.Message = phase + ": " + redact.Secret(e.Message, secret)
	return e
}

// Stream is an open 200 response body. Reading it rearms the idle timer.
type Stream struct {
	body      io.ReadCloser
	buffered  *bufio.Reader
	idle      *idleTimer
	release   func()
	secret    string
	timeout   time.Duration
	idleFired func() bool
}

func (s *Stream) read(p []byte) (int, error) {
	n, err := s.body.Read(p)
	if n > 0 {
		s.idle.touch()
	}
	return n, err
}

// Read implements io.Reader.
func (s *Stream) Read(p []byte) (int, error) { return s.buffered.Read(p) }

// Close releases the connection and the attempt's context.
func (s *Stream) Close() error {
	err := s.body.Close()
	s.release()
	return err
}

// Failure turns an error from decoding the stream into the error a
// provider returns: cancellation of ctx wraps ctx.Err(); an idle stall is a
// non-retryable ErrTimeout; anything else is returned as is, with the
// secret scrubbed from an *llm.Error message. Mid-stream failures are
// never retryable.
func (s *Stream) Failure(ctx context.Context, provider string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: stream interrupted: %w", provider, ctx.Err())
	}
	if s.idleFired() {
		return &llm.Error{Kind: llm.ErrTimeout, Err: err,
			Message: fmt.Sprintf("no data from the API for %s; stream aborted", s.timeout)}
	}
	var apiErr *llm.Error
	if errors.As(err, &apiErr) {
		apiErr.Message = redact.Secret(apiErr.Message, s.secret)
		apiErr.Retryable = false
	}
	return err
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

// idleTimer fires when nothing arrives for too long.
type idleTimer struct {
	timer *time.Timer
	d     time.Duration
}

func newIdleTimer(d time.Duration, fire func()) *idleTimer {
	if d <= 0 {
		return nil
	}
	return &idleTimer{timer: time.AfterFunc(d, fire), d: d}
}

func (t *idleTimer) touch() {
	if t != nil {
		t.timer.Reset(t.d)
	}
}

func (t *idleTimer) stop() {
	if t != nil {
		t.timer.Stop()
	}
}

// BodyText returns an error body that is not the expected JSON as a short
// message: trimmed, and cut to 300 bytes on a character boundary.
func BodyText(raw []byte) string {
	const limit = 300
	s := strings.TrimSpace(string(raw))
	if len(s) <= limit {
		return s
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
