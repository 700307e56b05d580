package anthropic

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/llm"
	"github.com/google/go-cmp/cmp"
)

const overloadedBody = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}`

func TestRetryOverloadedThenSuccess(t *testing.T) {
	api := newFakeAPI(t,
		errorBody(529, map[string]string{"retry-after-ms": "1500", "retry-after": "9"}, overloadedBody),
		sseBody(textStream("claude-test", "fine")),
	)
	p, sleeper := newTestProvider(t, api, Config{})
	deltas, sink := collect()
	got, err := p.Stream(context.Background(), userRequest("hi"), sink)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if diff := cmp.Diff([]llm.Block{llm.Text("fine")}, got.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{1500 * time.Millisecond}, sleeper.durations()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	wantDeltas := []llm.Delta{
		{Kind: llm.DeltaRetry, Text: "overloaded, retrying in 1.5s (attempt 1/4)"},
		{Kind: llm.DeltaText, Text: "fine"},
	}
	if diff := cmp.Diff(wantDeltas, *deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	if reqs := api.received(); len(reqs) != 2 || reqs[0].Body != reqs[1].Body {
		t.Errorf("want two identical requests, got %d", len(reqs))
	}
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name         string
		status       int
		headers      map[string]string
		body         string
		maxRetries   int
		wantErr      *llm.Error
		wantRequests int
	}{
		{
			name:         "429 spend limit is not retried",
			status:       429,
			headers:      map[string]string{"retry-after": "1"},
			body:         `{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your specified workspace API usage limits.","details":{"error_code":"enforced_spend_limit_reached"}}}`,
			wantErr:      &llm.Error{Kind: llm.ErrSpendLimit, StatusCode: 429, Message: "You have reached your specified workspace API usage limits."},
			wantRequests: 1,
		},
		{
			name:         "429 mentioning the spend limit is not retried",
			status:       429,
			body:         `{"type":"error","error":{"type":"rate_limit_error","message":"Monthly spend limit reached"}}`,
			wantErr:      &llm.Error{Kind: llm.ErrSpendLimit, StatusCode: 429, Message: "Monthly spend limit reached"},
			wantRequests: 1,
		},
		{
			name:         "500 retries are exhausted",
			status:       500,
			body:         `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`,
			maxRetries:   2,
			wantErr:      &llm.Error{Kind: llm.ErrServer, StatusCode: 500, Message: "Internal server error (gave up after 3 attempts)", Retryable: true},
			wantRequests: 3,
		},
		{
			name:         "plain rate limit is retried to exhaustion",
			status:       429,
			headers:      map[string]string{"retry-after": "2"},
			body:         `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			maxRetries:   1,
			wantErr:      &llm.Error{Kind: llm.ErrRateLimit, StatusCode: 429, Message: "Number of request tokens has exceeded your per-minute rate limit (gave up after 2 attempts)", Retryable: true},
			wantRequests: 2,
		},
		{
			name:         "x-should-retry false wins over 529",
			status:       529,
			headers:      map[string]string{"x-should-retry": "false"},
			body:         overloadedBody,
			wantErr:      &llm.Error{Kind: llm.ErrOverloaded, StatusCode: 529, Message: "Overloaded"},
			wantRequests: 1,
		},
		{
			name:         "400 invalid request",
			status:       400,
			body:         `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`,
			wantErr:      &llm.Error{Kind: llm.ErrInvalid, StatusCode: 400, Message: "max_tokens: Field required"},
			wantRequests: 1,
		},
		{
			name:         "401 authentication",
			status:       401,
			body:         `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			wantErr:      &llm.Error{Kind: llm.ErrAuth, StatusCode: 401, Message: "invalid x-api-key"},
			wantRequests: 1,
		},
		{
			name:         "404 by error type",
			status:       404,
			body:         `{"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"}}`,
			wantErr:      &llm.Error{Kind: llm.ErrNotFound, StatusCode: 404, Message: "model: claude-nope"},
			wantRequests: 1,
		},
		{
			name:         "402 billing",
			status:       402,
			body:         `{"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low"}}`,
			wantErr:      &llm.Error{Kind: llm.ErrSpendLimit, StatusCode: 402, Message: "Your credit balance is too low"},
			wantRequests: 1,
		},
		{
			name:         "non-JSON body is the message; retries disabled",
			status:       502,
			body:         "<html>Bad Gateway</html>",
			maxRetries:   -1,
			wantErr:      &llm.Error{Kind: llm.ErrServer, StatusCode: 502, Message: "<html>Bad Gateway</html>", Retryable: true},
			wantRequests: 1,
		},
		{
			name:         "empty body uses the status text",
			status:       403,
			wantErr:      &llm.Error{Kind: llm.ErrPermission, StatusCode: 403, Message: "Forbidden"},
			wantRequests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, errorBody(tt.status, tt.headers, tt.body))
			p, _ := newTestProvider(t, api, Config{MaxRetries: tt.maxRetries})
			got, err := p.Stream(context.Background(), userRequest("hi"), nil)
			if got != nil {
				t.Errorf("response = %+v, want nil", got)
			}
			var apiErr *llm.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want *llm.Error", err)
			}
			if diff := cmp.Diff(tt.wantErr, apiErr, cmpIgnoreErr); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if n := len(api.received()); n != tt.wantRequests {
				t.Errorf("sent %d requests, want %d", n, tt.wantRequests)
			}
		})
	}
}

func TestRetryTransportFailures(t *testing.T) {
	tests := []struct {
		name   string
		script func(w http.ResponseWriter, r *http.Request)
	}{
		{name: "connection closed before the response", script: dropBeforeResponse},
		{name: "200 with the connection closed before the first byte", script: dropAfter("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, tt.script, sseBody(textStream("claude-test", "ok")))
			p, sleeper := newTestProvider(t, api, Config{})
			deltas, sink := collect()
			got, err := p.Stream(context.Background(), userRequest("hi"), sink)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if diff := cmp.Diff([]llm.Block{llm.Text("ok")}, got.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]time.Duration{500 * time.Millisecond}, sleeper.durations()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			if len(*deltas) == 0 || (*deltas)[0].Kind != llm.DeltaRetry ||
				!strings.HasPrefix((*deltas)[0].Text, "connection failed, retrying in 500ms (attempt 1/4)") {
				t.Errorf("first delta = %+v, want a connection-failed retry notice", *deltas)
			}
		})
	}
}

func TestConnectionDroppedMidStream(t *testing.T) {
	prefix := event("message_start", msgStart) +
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Half"}}`)
	api := newFakeAPI(t, dropAfter(prefix))
	p, _ := newTestProvider(t, api, Config{})
	got, err := p.Stream(context.Background(), userRequest("hi"), nil)
	if kind := llm.ErrorKindOf(err); kind != llm.ErrStream {
		t.Fatalf("err = %v (kind %q), want kind %q", err, kind, llm.ErrStream)
	}
	if got == nil {
		t.Fatal("no partial response")
	}
	if diff := cmp.Diff([]llm.Block{llm.Text("Half")}, got.Content); diff != "" {
		t.Errorf("partial content (-want +got):\n%s", diff)
	}
	if n := len(api.received()); n != 1 {
		t.Errorf("sent %d requests, want 1", n)
	}
}

func TestCancelDuringStalledStream(t *testing.T) {
	prefix := event("message_start", msgStart) +
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Thinking about"}}`)
	api := newFakeAPI(t, stallAfter(t, prefix))
	p, _ := newTestProvider(t, api, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel as soon as the user has seen text; the server then sends
	// nothing more, so only cancellation can end the call.
	got, err := p.Stream(ctx, userRequest("hi"), func(d llm.Delta) {
		if d.Kind == llm.DeltaText {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got == nil || len(got.Content) != 1 || got.Content[0].Text != "Thinking about" {
		t.Errorf("partial response = %+v, want the text seen so far", got)
	}
}

func TestIdleTimeout(t *testing.T) {
	api := newFakeAPI(t, stallAfter(t, event("message_start", msgStart)))
	p, _ := newTestProvider(t, api, Config{StreamIdleTimeout: "50ms"})
	got, err := p.Stream(context.Background(), userRequest("hi"), nil)
	var apiErr *llm.Error
	if !errors.As(err, &apiErr) || apiErr.Kind != llm.ErrTimeout || apiErr.Retryable {
		t.Fatalf("err = %#v, want a non-retryable ErrTimeout", err)
	}
	if want := "no data from the API for 50ms; stream aborted"; apiErr.Message != want {
		t.Errorf("message = %q, want %q", apiErr.Message, want)
	}
	if got == nil || got.ID != "msg_01" {
		t.Errorf("partial response = %+v, want the message_start fields", got)
	}
}

func TestMissingAPIKey(t *testing.T) {
	api := newFakeAPI(t, sseBody(textStream("claude-test", "ok")))
	vars := map[string]string{}
	p, err := New(Config{Model: "m", BaseURL: api.URL, APIKeyEnv: "MY_KEY"},
		WithHTTPClient(api.Client()), WithGetenv(func(k string) string { return vars[k] }))
	if err != nil {
		t.Fatal(err)
	}
	want := &llm.Error{Kind: llm.ErrMissingAPIKey, Message: "set MY_KEY to your Anthropic API key (it is empty or unset)", KeyEnv: "MY_KEY"}
	if diff := cmp.Diff(want, p.CheckCredentials()); diff != "" {
		t.Errorf("CheckCredentials (-want +got):\n%s", diff)
	}
	_, err = p.Stream(context.Background(), userRequest("hi"), nil)
	if diff := cmp.Diff(error(want), err); diff != "" {
		t.Errorf("Stream error (-want +got):\n%s", diff)
	}
	if n := len(api.received()); n != 0 {
		t.Errorf("sent %d requests without a key", n)
	}

	vars["MY_KEY"] = "sk-later" // the key is read per call
	if err := p.CheckCredentials(); err != nil {
		t.Errorf("CheckCredentials after setting the key: %v", err)
	}
	if _, err := p.Stream(context.Background(), userRequest("hi"), nil); err != nil {
		t.Fatalf("Stream after setting the key: %v", err)
	}
	if got := api.received()[0].Header.Get("X-Api-Key"); got != "sk-later" {
		t.Errorf("x-api-key = %q, want sk-later", got)
	}
}

func TestBaseURL(t *testing.T) {
	tests := []struct {
		name string
		cfg  string
		env  string
		want string
	}{
		{name: "default", want: "https://api.anthropic.com"},
		{name: "from env", env: "http://proxy.local:8080/", want: "http://proxy.local:8080"},
		{name: "config wins", cfg: "http://cfg.local", env: "http://env.local", want: "http://cfg.local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(Config{BaseURL: tt.cfg}, WithGetenv(env(map[string]string{BaseURLEnv: tt.env})))
			if err != nil {
				t.Fatal(err)
			}
			if p.cfg.BaseURL != tt.want {
				t.Errorf("base URL = %q, want %q", p.cfg.BaseURL, tt.want)
			}
		})
	}
}

func TestNewRejectsBadDurations(t *testing.T) {
	for _, cfg := range []Config{{FallbackCooldown: "soon"}, {StreamIdleTimeout: "-1s"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", cfg)
		}
	}
}

func TestLogsNeverContainTheKey(t *testing.T) {
	api := newFakeAPI(t,
		errorBody(529, nil, overloadedBody),
		errorBody(401, nil, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key `+testKey+`"}}`),
	)
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, _ := newTestProvider(t, api, Config{}, WithLogger(logger))
	_, err := p.Stream(context.Background(), userRequest("hi"), nil)
	if err == nil {
		t.Fatal("want an error")
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error leaks the key: %v", err)
	}
	out := logs.String()
	if strings.Contains(out, testKey) || strings.Contains(out, "SECRET") {
		t.Errorf("logs leak the key:\n%s", out)
	}
	for _, want := range []string{"X-Api-Key=[REDACTED]", "anthropic request", "anthropic response", "status=529", "status=401"} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %q:\n%s", want, out)
		}
	}
}

// fakeClock is a manually advanced clock.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

func TestCircuitBreaker(t *testing.T) {
	// The primary is overloaded until primaryHealthy is set; the fallback
	// always answers.
	var primaryHealthy atomic.Bool
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		body := string(raw)
		switch {
		case strings.Contains(body, `"model":"claude-fallback"`):
			sseBody(textStream("claude-fallback", "from fallback"))(w, r)
		case primaryHealthy.Load():
			sseBody(textStream("claude-primary", "from primary"))(w, r)
		default:
			errorBody(529, nil, overloadedBody)(w, r)
		}
	})
	clock := &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	p, _ := newTestProvider(t, api, Config{
		Model: "claude-primary", FallbackModel: "claude-fallback",
		FallbackAfter: 2, FallbackCooldown: "60s", MaxRetries: 3,
	}, WithClock(clock.Now))

	models := func() []string {
		var out []string
		for _, r := range api.received() {
			for _, m := range []string{"claude-primary", "claude-fallback"} {
				if strings.Contains(r.Body, `"model":"`+m+`"`) {
					out = append(out, m)
				}
			}
		}
		return out
	}
	stream := func(wantText string) {
		t.Helper()
		resp, err := p.Stream(context.Background(), userRequest("hi"), nil)
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		if got := resp.Content[0].Text; got != wantText {
			t.Fatalf("answer %q, want %q", got, wantText)
		}
	}

	// Two overloads open the circuit; the third attempt of the same call
	// already goes to the fallback.
	stream("from fallback")
	if diff := cmp.Diff([]string{"claude-primary", "claude-primary", "claude-fallback"}, models()); diff != "" {
		t.Fatalf("models after opening (-want +got):\n%s", diff)
	}
	if s := p.breaker.current(); s != breakerOpen {
		t.Fatalf("breaker state %v, want open", s)
	}

	// While open, calls go straight to the fallback.
	clock.now = clock.now.Add(59 * time.Second)
	stream("from fallback")
	if got := models()[3]; got != "claude-fallback" {
		t.Fatalf("open circuit used %s", got)
	}

	// After the cool-down the primary is probed; still overloaded, so the
	// circuit re-opens and the retry uses the fallback.
	clock.now = clock.now.Add(2 * time.Second)
	stream("from fallback")
	if diff := cmp.Diff([]string{"claude-primary", "claude-fallback"}, models()[4:]); diff != "" {
		t.Fatalf("failed probe (-want +got):\n%s", diff)
	}
	if s := p.breaker.current(); s != breakerOpen {
		t.Fatalf("breaker state after failed probe %v, want open", s)
	}

	// The re-opened circuit waits a full cool-down again.
	clock.now = clock.now.Add(30 * time.Second)
	stream("from fallback")
	if got := models()[6]; got != "claude-fallback" {
		t.Fatalf("re-opened circuit used %s", got)
	}

	// A successful probe closes the circuit.
	primaryHealthy.Store(true)
	clock.now = clock.now.Add(31 * time.Second)
	stream("from primary")
	stream("from primary")
	if diff := cmp.Diff([]string{"claude-primary", "claude-primary"}, models()[7:]); diff != "" {
		t.Fatalf("after recovery (-want +got):\n%s", diff)
	}
	if s := p.breaker.current(); s != breakerClosed {
		t.Fatalf("breaker state %v, want closed", s)
	}
}

func TestBreakerHalfOpenAllowsOneProbe(t *testing.T) {
	clock := &fakeClock{now: time.Unix(0, 0)}
	b := newBreaker(1, time.Minute, clock.Now)
	b.record(outcomeOverloaded)
	if b.allowPrimary() {
		t.Fatal("open breaker allowed the primary")
	}
	clock.now = clock.now.Add(time.Minute)
	if !b.allowPrimary() {
		t.Fatal("half-open breaker refused the probe")
	}
	if b.allowPrimary() {
		t.Fatal("half-open breaker allowed a second concurrent probe")
	}
	b.record(outcomeOther) // the probe failed for an unrelated reason
	if !b.allowPrimary() {
		t.Fatal("half-open breaker refused a new probe after an inconclusive one")
	}
	b.record(outcomeSuccess)
	if b.current() != breakerClosed || !b.allowPrimary() || !b.allowPrimary() {
		t.Fatal("successful probe did not close the breaker")
	}
}

// TestConcurrentStreams shares one Provider (and its breaker) between
// goroutines; run with -race.
func TestConcurrentStreams(t *testing.T) {
	var calls atomic.Int64
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1)%3 == 0 {
			errorBody(529, nil, overloadedBody)(w, r)
			return
		}
		sseBody(textStream("claude-test", "ok"))(w, r)
	})
	p, _ := newTestProvider(t, api, Config{FallbackModel: "claude-fallback", FallbackAfter: 2})
	const workers = 8
	errs := make(chan error, workers)
	for range workers {
		go func() {
			resp, err := p.Stream(context.Background(), userRequest("hi"), nil)
			if err == nil && resp.Content[0].Text != "ok" {
				err = errors.New("wrong answer " + resp.Content[0].Text)
			}
			errs <- err
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
