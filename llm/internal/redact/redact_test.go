package redact

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("x-api-key", "sk-ant-secret")
	h.Set("Authorization", "Bearer sk-secret")
	h.Set("Cookie", "session=secret")
	h.Set("Anthropic-Version", "2023-06-01")
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Info("req", "headers", Headers(h))
	got := buf.String()
	if strings.Contains(got, "secret") {
		t.Errorf("log leaks a credential: %s", got)
	}
	for _, want := range []string{
		"headers.Anthropic-Version=2023-06-01",
		"headers.Authorization=[REDACTED]",
		"headers.Cookie=[REDACTED]",
		"headers.X-Api-Key=[REDACTED]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log %q lacks %q", got, want)
		}
	}
}

func TestSecret(t *testing.T) {
	if got := Secret("bad key sk-1 (sk-1)", "sk-1"); got != "bad key [REDACTED] ([REDACTED])" {
		t.Errorf("Secret = %q", got)
	}
	if got := Secret("unchanged", ""); got != "unchanged" {
		t.Errorf("Secret with empty secret = %q", got)
	}
}
