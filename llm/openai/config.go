package openai

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultBaseURL           = "https://api.openai.com/v1"
	DefaultAPIKeyEnv         = "OPENAI_API_KEY"
	DefaultMaxRetries        = 4
	DefaultStreamIdleTimeout = 5 * time.Minute

	// BaseURLEnv overrides the endpoint when Config.BaseURL is empty.
	BaseURLEnv = "OPENAI_BASE_URL"
)

// Config configures the provider. Zero values take the defaults above.
type Config struct {
	BaseURL           string `json:"baseURL,omitempty" yaml:"baseURL,omitempty" jsonschema:"description=API root including the version path; defaults to $OPENAI_BASE_URL or https://api.openai.com/v1"`
	Model             string `json:"model,omitempty" yaml:"model,omitempty" jsonschema:"description=Model name sent when the request names none (for example gpt-4o or deepseek-chat)"`
	APIKeyEnv         string `json:"apiKeyEnv,omitempty" yaml:"apiKeyEnv,omitempty" jsonschema:"description=Environment variable holding the API key (default OPENAI_API_KEY); optional for servers on a loopback address"`
	MaxTokens         int    `json:"maxTokens,omitempty" yaml:"maxTokens,omitempty" jsonschema:"description=Maximum output tokens per step when the request sets none; 0 leaves it to the server,minimum=0"`
	MaxTokensField    string `json:"maxTokensField,omitempty" yaml:"maxTokensField,omitempty" jsonschema:"description=Request field for the output limit: max_tokens or max_completion_tokens; by default the one the model takes (max_completion_tokens for OpenAI o-series and GPT-5 models; max_tokens otherwise),enum=max_tokens,enum=max_completion_tokens"`
	MaxRetries        int    `json:"maxRetries,omitempty" yaml:"maxRetries,omitempty" jsonschema:"description=Retries after the first attempt for 408/409/429/5xx and connection failures (default 4; negative disables retries)"`
	StreamIdleTimeout string `json:"streamIdleTimeout,omitempty" yaml:"streamIdleTimeout,omitempty" jsonschema:"description=Abort a stream that sends nothing for this long (Go duration; default 5m)"`
}

// Option customises a Provider beyond its Config, mostly for tests.
type Option func(*options)

type options struct {
	client *http.Client
	getenv func(string) string
	sleep  func(context.Context, time.Duration) error
	now    func() time.Time
	logger *slog.Logger
}

// WithHTTPClient sets the HTTP client (default: one without a timeout;
// stalls are caught by the idle timeout).
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.client = c } }

// WithGetenv replaces os.Getenv for the API key and base URL lookups.
func WithGetenv(getenv func(string) string) Option { return func(o *options) { o.getenv = getenv } }

// WithSleep replaces the wait between retries. It must return ctx.Err()
// when ctx is done.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(o *options) { o.sleep = sleep }
}

// WithClock replaces time.Now for HTTP-date Retry-After headers.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithLogger sets the logger for debug traces of requests and responses.
// Credentials are redacted. The default discards everything.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

type resolved struct {
	Config
	idleTimeout time.Duration
	// keyOptional is set for loopback servers.
	keyOptional bool
}

func resolve(cfg Config, getenv func(string) string) (resolved, error) {
	r := resolved{Config: cfg}
	if r.BaseURL == "" {
		r.BaseURL = getenv(BaseURLEnv)
	}
	if r.BaseURL == "" {
		r.BaseURL = DefaultBaseURL
	}
	r.BaseURL = strings.TrimRight(r.BaseURL, "/")
	u, err := url.Parse(r.BaseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return r, fmt.Errorf("openai config: baseURL %q is not an absolute URL", r.BaseURL)
	}
	r.keyOptional = isLoopback(u.Hostname())
	if r.APIKeyEnv == "" {
		r.APIKeyEnv = DefaultAPIKeyEnv
	}
	switch r.MaxTokensField {
	case "": // the model's own field (llm.CapsOf), chosen per request
	case "max_tokens", "max_completion_tokens":
	default:
		return r, fmt.Errorf("openai config: maxTokensField must be max_tokens or max_completion_tokens, got %q", r.MaxTokensField)
	}
	if r.MaxTokens < 0 {
		return r, fmt.Errorf("openai config: maxTokens must not be negative")
	}
	switch {
	case r.MaxRetries == 0:
		r.MaxRetries = DefaultMaxRetries
	case r.MaxRetries < 0:
		r.MaxRetries = 0
	}
	r.idleTimeout = DefaultStreamIdleTimeout
	if cfg.StreamIdleTimeout != "" {
		d, err := time.ParseDuration(cfg.StreamIdleTimeout)
		if err != nil {
			return r, fmt.Errorf("openai config: streamIdleTimeout: %w", err)
		}
		if d <= 0 {
			return r, fmt.Errorf("openai config: streamIdleTimeout must be positive, got %q", cfg.StreamIdleTimeout)
		}
		r.idleTimeout = d
	}
	return r, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
