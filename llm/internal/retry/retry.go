package retry

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/cordis-agent/cordis/llm"
)

const (
	// DefaultMaxRetries is used when a provider's config leaves MaxRetries 0.
	DefaultMaxRetries = 4

	initialBackoff = 500 * time.Millisecond
	maxBackoff     = 8 * time.Second
	// maxServerDelay caps a server-requested wait; a longer one is
	// shortened rather than ignored so we still back off substantially.
	maxServerDelay = 60 * time.Second
)

// Policy runs attempts until one succeeds, fails for good, or the retry
// budget is spent.
type Policy struct {
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// Sleep waits d or until ctx is done. Nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now reads the clock for HTTP-date Retry-After values. Nil means
	// time.Now.
	Now func() time.Time
	// Jitter returns a value in [0, 1). Nil means math/rand/v2.
	Jitter func() float64
}

// Attempt performs try number n (0 for the first). On success it returns a
// response whose body the caller will consume. On failure it returns an
// error, an *llm.Error when the failure was classified, plus the response
// (body already closed) when there was one, so Do can read retry headers.
type Attempt func(ctx context.Context, n int) (*http.Response, error)

// Do runs attempt until it succeeds or fails with an error that is not a
// retryable *llm.Error, or MaxRetries retries are spent. Before each wait it
// calls notify with a human-readable line such as
// "overloaded, retrying in 2s (attempt 2/4)", where "attempt k/N" counts
// retries. When a non-zero budget is exhausted the last error is returned
// with "(gave up after N attempts)" appended to its message.
func (p Policy) Do(ctx context.Context, attempt Attempt, notify func(string)) (*http.Response, error) {
	for n := 0; ; n++ {
		resp, err := attempt(ctx, n)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			if errors.Is(err, ctx.Err()) {
				return nil, err
			}
			return nil, fmt.Errorf("%w (last attempt: %w)", ctx.Err(), err)
		}
		var apiErr *llm.Error
		if !errors.As(err, &apiErr) || !apiErr.Retryable {
			return nil, err
		}
		if n >= p.MaxRetries {
			if n == 0 {
				return nil, err // retries disabled: nothing was given up
			}
			exhausted := *apiErr
			exhausted.Message = fmt.Sprintf("%s (gave up after %d attempts)", apiErr.Message, n+1)
			return nil, &exhausted
		}
		var header http.Header
		if resp != nil {
			header = resp.Header
		}
		delay := Delay(n, header, p.now(), p.jitter())
		if notify != nil {
			notify(fmt.Sprintf("%s, retrying in %s (attempt %d/%d)", Reason(apiErr), formatDelay(delay), n+1, p.MaxRetries))
		}
		if err := p.sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("waiting to retry after %s: %w", Reason(apiErr), err)
		}
	}
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return SleepContext(ctx, d)
}

func (p Policy) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p Policy) jitter() float64 {
	if p.Jitter != nil {
		return p.Jitter()
	}
	return rand.Float64()
}

// SleepContext waits d, returning ctx.Err() early if ctx is done first.
func SleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RetryableStatus reports whether an HTTP status is worth retrying by
// default: request timeout, conflict, rate limit and any server error
// (which includes Anthropic's 529 overloaded).
func RetryableStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// ShouldRetry applies the server's x-should-retry override to
// RetryableStatus.
func ShouldRetry(status int, h http.Header) bool {
	switch h.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	return RetryableStatus(status)
}

// Delay is how long to wait before retry number n+1 (n counts the retries
// already made). A server's retry-after-ms, then retry-after (seconds or an
// HTTP date), wins, capped at one minute; otherwise 0.5s·2^n capped at 8s,
// minus up to 25% jitter (jitter in [0, 1)).
func Delay(n int, h http.Header, now time.Time, jitter float64) time.Duration {
	if d, ok := serverDelay(h, now); ok {
		return min(d, maxServerDelay)
	}
	backoff := maxBackoff
	if n < 5 { // 0.5s<<4 = 8s already; avoid shifting into overflow
		backoff = min(initialBackoff<<n, maxBackoff)
	}
	return time.Duration(float64(backoff) * (1 - 0.25*jitter))
}

func serverDelay(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// KindForStatus maps an HTTP status to an error kind when the body does not
// say more.
func KindForStatus(status int) llm.ErrorKind {
	switch {
	case status == http.StatusUnauthorized:
		return llm.ErrAuth
	case status == http.StatusPaymentRequired:
		return llm.ErrSpendLimit
	case status == http.StatusForbidden:
		return llm.ErrPermission
	case status == http.StatusNotFound:
		return llm.ErrNotFound
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return llm.ErrTimeout
	case status == http.StatusTooManyRequests:
		return llm.ErrRateLimit
	case status == 529:
		return llm.ErrOverloaded
	case status >= 500 || status == http.StatusConflict:
		return llm.ErrServer
	default:
		return llm.ErrInvalid
	}
}

// HTTPError builds the error for a non-200 response. Spend-limit failures
// are never retryable, whatever the status or headers say: waiting does not
// raise a budget.
func HTTPError(status int, h http.Header, kind llm.ErrorKind, message string) *llm.Error {
	if message == "" {
		message = http.StatusText(status)
	}
	return &llm.Error{
		Kind:       kind,
		StatusCode: status,
		Message:    message,
		Retryable:  kind != llm.ErrSpendLimit && ShouldRetry(status, h),
	}
}

// TransportError classifies a failure to get response headers at all
// (connection refused, reset, TLS). Nothing was streamed, so it is
// retryable.
func TransportError(err error) *llm.Error {
	return &llm.Error{Kind: llm.ErrTransport, Message: err.Error(), Retryable: true, Err: err}
}

// Reason is a short phrase for a retry notice.
func Reason(e *llm.Error) string {
	switch e.Kind {
	case llm.ErrOverloaded:
		return "overloaded"
	case llm.ErrRateLimit:
		return "rate limited"
	case llm.ErrTimeout:
		return "request timed out"
	case llm.ErrTransport:
		return "connection failed"
	case llm.ErrServer:
		if e.StatusCode != 0 {
			return fmt.Sprintf("server error (HTTP %d)", e.StatusCode)
		}
		return "server error"
	}
	if e.StatusCode != 0 {
		return fmt.Sprintf("%s error (HTTP %d)", e.Kind, e.StatusCode)
	}
	return string(e.Kind) + " error"
}

// formatDelay rounds for display: "2s", "1.5s", "250ms".
func formatDelay(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
