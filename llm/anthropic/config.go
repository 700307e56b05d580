package anthropic

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/cordis-agent/cordis/llm"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultBaseURL           = "https://api.anthropic.com"
	DefaultAPIKeyEnv         = "ANTHROPIC_API_KEY"
	DefaultMaxTokens         = 8192
	DefaultMaxRetries        = 4
	DefaultFallbackAfter     = 3
	DefaultFallbackCooldown  = 60 * time.Second
	DefaultStreamIdleTimeout = 5 * time.Minute

	// BaseURLEnv overrides the API endpoint when Config.BaseURL is empty.
	BaseURLEnv = "ANTHROPIC_BASE_URL"
	// APIVersion is sent as the anthropic-version header.
	APIVersion = "2023-06-01"
)

// Config configures the provider. Zero values take the defaults above.
// Durations are strings in time.ParseDuration syntax ("60s", "5m") so they
// read the same in YAML, JSON and the generated schema.
type Config struct {
	Model             string `json:"model,omitempty" yaml:"model,omitempty" jsonschema:"description=Model ID sent to the Messages API when the request names none (for example claude-sonnet-4-5)"`
	MaxTokens         int    `json:"maxTokens,omitempty" yaml:"maxTokens,omitempty" jsonschema:"description=Maximum output tokens per step when the request sets none (default 8192),minimum=1"`
	BaseURL           string `json:"baseURL,omitempty" yaml:"baseURL,omitempty" jsonschema:"description=API endpoint without the /v1 path; defaults to $ANTHROPIC_BASE_URL or https://api.anthropic.com"`
	APIKeyEnv         string `json:"apiKeyEnv,omitempty" yaml:"apiKeyEnv,omitempty" jsonschema:"description=Environment variable holding the API key (default ANTHROPIC_API_KEY); read on every request"`
	MaxRetries        int    `json:"maxRetries,omitempty" yaml:"maxRetries,omitempty" jsonschema:"description=Retries after the first attempt for 408/409/429/5xx and connection failures (default 4; negative disables retries)"`
	FallbackModel     string `json:"fallbackModel,omitempty" yaml:"fallbackModel,omitempty" jsonschema:"description=Model to use while the primary model is overloaded; empty disables the fallback"`
	FallbackAfter     int    `json:"fallbackAfter,omitempty" yaml:"fallbackAfter,omitempty" jsonschema:"description=Consecutive overloaded responses from the primary model that switch to the fallback model (default 3),minimum=1"`
	FallbackCooldown  string `json:"fallbackCooldown,omitempty" yaml:"fallbackCooldown,omitempty" jsonschema:"description=How long to stay on the fallback model before trying the primary again (Go duration; default 60s)"`
	ThinkingBudget    int    `json:"thinkingBudget,omitempty" yaml:"thinkingBudget,omitempty" jsonschema:"description=Extended thinking token budget when the request sets none; 0 disables thinking,minimum=0"`
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

// WithHTTPClient sets the HTTP client (default: a client without a
// timeout, since streams are long-lived; stalls are caught by the idle
// timeout instead).
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.client = c } }

// WithGetenv replaces os.Getenv for the API key and base URL lookups.
func WithGetenv(getenv func(string) string) Option { return func(o *options) { o.getenv = getenv } }

// WithSleep replaces the wait between retries. It must return ctx.Err()
// when ctx is done.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(o *options) { o.sleep = sleep }
}

// WithClock replaces time.Now for the circuit breaker and HTTP-date
// Retry-After headers.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithLogger sets the logger for debug traces of requests and responses.
// Credentials are redacted. The default discards everything.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// resolved is Config with defaults applied and durations parsed.
type resolved struct {
	Config
	fallbackCooldown time.Duration
	idleTimeout      time.Duration
}

func resolve(cfg Config, getenv func(string) string) (resolved, error) {
	r := resolved{Config: cfg}
	if r.BaseURL == "" {
		r.BaseURL = getenv(BaseURLEnv)
	}
	if r.BaseURL == "" {
		r.BaseURL = DefaultBaseURL
	}
	for len(r.BaseURL) > 0 && r.BaseURL[len(r.BaseURL)-1] == '/' {
		r.BaseURL = r.BaseURL[:len(r.BaseURL)-1]
	}
	if r.APIKeyEnv == "" {
		r.APIKeyEnv = DefaultAPIKeyEnv
	}
	if r.MaxTokens == 0 {
		r.MaxTokens = DefaultMaxTokens
	}
	switch {
	case r.MaxRetries == 0:
		r.MaxRetries = DefaultMaxRetries
	case r.MaxRetries < 0:
		r.MaxRetries = 0
	}
	if r.FallbackAfter <= 0 {
		r.FallbackAfter = DefaultFallbackAfter
	}
	var err error
	if r.fallbackCooldown, err = parseDuration("fallbackCooldown", cfg.FallbackCooldown, DefaultFallbackCooldown); err != nil {
		return r, err
	}
	if r.idleTimeout, err = parseDuration("streamIdleTimeout", cfg.StreamIdleTimeout, DefaultStreamIdleTimeout); err != nil {
		return r, err
	}
	if r.MaxTokens < 0 || r.ThinkingBudget < 0 {
		return r, fmt.Errorf("anthropic config: maxTokens and thinkingBudget must not be negative")
	}
	return r, checkThinking(r.Model, r.ThinkingBudget, r.MaxTokens)
}

// MinThinkingBudget is the smallest budget_tokens the API accepts.
const MinThinkingBudget = 1024

// checkThinking refuses a thinking budget the API would refuse on every
// request: under 1024 tokens, or not below max_tokens (which counts the
// thinking). Models that think adaptively take no budget, so theirs only
// has to be positive.
func checkThinking(model string, budget, maxTokens int) error {
	if budget == 0 || llm.CapsOf(model).Thinking == llm.ThinkingAdaptive {
		return nil
	}
	if budget < MinThinkingBudget {
		return fmt.Errorf("anthropic config: thinkingBudget %d is below the API's minimum of %d tokens; raise it, or set 0 to turn thinking off", budget, MinThinkingBudget)
	}
	if budget >= maxTokens {
		return fmt.Errorf("anthropic config: thinkingBudget %d must be less than maxTokens %d (thinking counts against the output limit); raise maxTokens or lower thinkingBudget", budget, maxTokens)
	}
	return nil
}

func parseDuration(field, s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("anthropic config: %s: %w", field, err)
	}
	if d <= 0 {
		return 0, fmt.Errorf("anthropic config: %s must be positive, got %q", field, s)
	}
	return d, nil
}
