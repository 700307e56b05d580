package retry

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/llm"
	"github.com/google/go-cmp/cmp"
)

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestDelay(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		n      int
		h      http.Header
		jitter float64
		want   time.Duration
	}{
		{name: "first backoff", n: 0, want: 500 * time.Millisecond},
		{name: "second backoff", n: 1, want: time.Second},
		{name: "capped", n: 7, want: 8 * time.Second},
		{name: "huge n does not overflow", n: 200, want: 8 * time.Second},
		{name: "full jitter takes 25% off", n: 2, jitter: 1, want: 1500 * time.Millisecond},
		{name: "retry-after-ms wins, no jitter", n: 3, h: header("retry-after-ms", "1234", "retry-after", "9"), jitter: 0.9, want: 1234 * time.Millisecond},
		{name: "retry-after seconds", h: header("retry-after", "3"), want: 3 * time.Second},
		{name: "retry-after fractional seconds", h: header("retry-after", "1.5"), want: 1500 * time.Millisecond},
		{name: "retry-after http date", h: header("retry-after", now.Add(7*time.Second).Format(http.TimeFormat)), want: 7 * time.Second},
		{name: "retry-after date in the past", h: header("retry-after", now.Add(-time.Hour).Format(http.TimeFormat)), want: 0},
		{name: "server delay capped at a minute", h: header("retry-after", "3600"), want: time.Minute},
		{name: "garbage header falls back to backoff", h: header("retry-after", "soon"), want: 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Delay(tt.n, tt.h, now, tt.jitter); got != tt.want {
				t.Errorf("Delay = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestShouldRetry(t *testing.T) {
	tests := []struct {
		status int
		h      http.Header
		want   bool
	}{
		{400, nil, false},
		{401, nil, false},
		{408, nil, true},
		{409, nil, true},
		{429, nil, true},
		{500, nil, true},
		{529, nil, true},
		{400, header("x-should-retry", "true"), true},
		{503, header("x-should-retry", "false"), false},
	}
	for _, tt := range tests {
		if got := ShouldRetry(tt.status, tt.h); got != tt.want {
			t.Errorf("ShouldRetry(%d, %v) = %v, want %v", tt.status, tt.h, got, tt.want)
		}
	}
}

func TestHTTPErrorSpendLimitNeverRetryable(t *testing.T) {
	e := HTTPError(429, header("x-should-retry", "true"), llm.ErrSpendLimit, "")
	if e.Retryable {
		t.Error("spend limit error is retryable")
	}
	if e.Message != "Too Many Requests" {
		t.Errorf("Message = %q, want the status text", e.Message)
	}
}

type fakeSleeper struct{ slept []time.Duration }

func (f *fakeSleeper) sleep(ctx context.Context, d time.Duration) error {
	f.slept = append(f.slept, d)
	return ctx.Err()
}

func TestDo(t *testing.T) {
	overloaded := func() (*http.Response, error) {
		return &http.Response{StatusCode: 529, Header: header("retry-after-ms", "2000")},
			HTTPError(529, nil, llm.ErrOverloaded, "Overloaded")
	}
	t.Run("retries then succeeds", func(t *testing.T) {
		var s fakeSleeper
		var notes []string
		ok := &http.Response{StatusCode: 200}
		calls := 0
		resp, err := Policy{MaxRetries: 4, Sleep: s.sleep}.Do(context.Background(), func(ctx context.Context, n int) (*http.Response, error) {
			if n != calls {
				t.Errorf("attempt number %d, want %d", n, calls)
			}
			calls++
			if n < 2 {
				return overloaded()
			}
			return ok, nil
		}, func(s string) { notes = append(notes, s) })
		if err != nil || resp != ok {
			t.Fatalf("Do = %v, %v", resp, err)
		}
		if diff := cmp.Diff([]time.Duration{2 * time.Second, 2 * time.Second}, s.slept); diff != "" {
			t.Errorf("sleeps (-want +got):\n%s", diff)
		}
		want := []string{
			"overloaded, retrying in 2s (attempt 1/4)",
			"overloaded, retrying in 2s (attempt 2/4)",
		}
		if diff := cmp.Diff(want, notes); diff != "" {
			t.Errorf("notices (-want +got):\n%s", diff)
		}
	})
	t.Run("exhausted", func(t *testing.T) {
		var s fakeSleeper
		calls := 0
		_, err := Policy{MaxRetries: 2, Sleep: s.sleep, Jitter: func() float64 { return 0 }}.Do(context.Background(), func(ctx context.Context, n int) (*http.Response, error) {
			calls++
			return &http.Response{StatusCode: 500, Header: http.Header{}}, HTTPError(500, nil, llm.ErrServer, "boom")
		}, nil)
		var e *llm.Error
		if !errors.As(err, &e) {
			t.Fatalf("err = %v, want *llm.Error", err)
		}
		if calls != 3 || e.Kind != llm.ErrServer || e.StatusCode != 500 || e.Message != "boom (gave up after 3 attempts)" {
			t.Errorf("calls=%d err=%+v", calls, e)
		}
		if diff := cmp.Diff([]time.Duration{500 * time.Millisecond, time.Second}, s.slept); diff != "" {
			t.Errorf("sleeps (-want +got):\n%s", diff)
		}
	})
	t.Run("not retryable", func(t *testing.T) {
		calls := 0
		_, err := Policy{MaxRetries: 4}.Do(context.Background(), func(ctx context.Context, n int) (*http.Response, error) {
			calls++
			return nil, HTTPError(400, nil, llm.ErrInvalid, "bad")
		}, nil)
		if calls != 1 || llm.ErrorKindOf(err) != llm.ErrInvalid {
			t.Errorf("calls=%d err=%v", calls, err)
		}
	})
	t.Run("plain error is not retried", func(t *testing.T) {
		calls := 0
		boom := errors.New("encode failed")
		_, err := Policy{MaxRetries: 4}.Do(context.Background(), func(ctx context.Context, n int) (*http.Response, error) {
			calls++
			return nil, boom
		}, nil)
		if calls != 1 || !errors.Is(err, boom) {
			t.Errorf("calls=%d err=%v", calls, err)
		}
	})
	t.Run("cancel while waiting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := Policy{MaxRetries: 4}.Do(ctx, func(ctx context.Context, n int) (*http.Response, error) {
			return overloaded()
		}, func(string) { cancel() })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}
