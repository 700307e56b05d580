package redact

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"
)

// Placeholder replaces every redacted value.
const Placeholder = "[REDACTED]"

// sensitive lists headers (canonical form) whose values are credentials.
var sensitive = []string{
	"Api-Key",
	"Authorization",
	"Cookie",
	"Proxy-Authorization",
	"Set-Cookie",
	"X-Api-Key",
}

// Headers returns h as a log group with credential values replaced by
// Placeholder. Keys are sorted so log lines are stable.
func Headers(h http.Header) slog.Value {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	attrs := make([]slog.Attr, 0, len(keys))
	for _, k := range keys {
		v := strings.Join(h[k], ", ")
		if slices.Contains(sensitive, http.CanonicalHeaderKey(k)) {
			v = Placeholder
		}
		attrs = append(attrs, slog.String(k, v))
	}
	return slog.GroupValue(attrs...)
}

// Secret returns s with every occurrence of secret replaced by Placeholder,
// for text that came from elsewhere (a server's error message, a transport
// error) and might echo the credential back.
func Secret(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, Placeholder)
}
