package httpstream

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/llm"
)

func newClient(srv *httptest.Server, idle time.Duration) *Client {
	return &Client{HTTP: srv.Client(), Logger: slog.New(slog.DiscardHandler), IdleTimeout: idle, Provider: "test"}
}

func get(url string) func(ctx context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	}
}

func noHTTPError(t *testing.T) ErrorFunc {
	return func(resp *http.Response, body []byte) *llm.Error {
		t.Errorf("unexpected HTTP error %d", resp.StatusCode)
		return &llm.Error{Kind: llm.ErrServer}
	}
}

func TestIdleBeforeHeadersIsRetryableTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	_, _, err := newClient(srv, 30*time.Millisecond).Open(context.Background(), get(srv.URL), "", noHTTPError(t))
	var apiErr *llm.Error
	if !errors.As(err, &apiErr) || apiErr.Kind != llm.ErrTimeout || !apiErr.Retryable {
		t.Fatalf("err = %#v, want a retryable ErrTimeout", err)
	}
	if want := "sending request: nothing received for 30ms"; apiErr.Message != want {
		t.Errorf("message = %q, want %q", apiErr.Message, want)
	}
}

func TestOpenReadsAndClassifiesErrorBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "down for key sk-1")
	}))
	defer srv.Close()
	var gotBody string
	_, resp, err := newClient(srv, time.Minute).Open(context.Background(), get(srv.URL), "sk-1", func(resp *http.Response, body []byte) *llm.Error {
		gotBody = string(body)
		return &llm.Error{Kind: llm.ErrServer, StatusCode: resp.StatusCode, Message: string(body)}
	})
	if gotBody != "down for key sk-1" {
		t.Errorf("classifier saw body %q", gotBody)
	}
	if resp == nil || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("response headers not returned for the retry policy: %+v", resp)
	}
	if err == nil || !strings.Contains(err.Error(), "down for key [REDACTED]") {
		t.Errorf("err = %v, want the secret scrubbed", err)
	}
}

func TestStreamReadsBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: x\n\n")
	}))
	defer srv.Close()
	s, _, err := newClient(srv, time.Minute).Open(context.Background(), get(srv.URL), "", noHTTPError(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := io.ReadAll(s)
	if err != nil || string(got) != "data: x\n\n" {
		t.Errorf("ReadAll = %q, %v", got, err)
	}
}

func TestBodyText(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	got := BodyText([]byte("  " + long + "  "))
	if !strings.HasSuffix(got, "…") || len(got) > 300+len("…") || !strings.HasPrefix(got, "éé") {
		t.Errorf("BodyText = %q", got)
	}
	if got := BodyText([]byte(" short \n")); got != "short" {
		t.Errorf("BodyText = %q, want short", got)
	}
}
