package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/internal/httpstream"
	"github.com/cordis-agent/cordis/llm/internal/retry"
)

// Provider streams steps from an OpenAI-compatible Chat Completions API.
type Provider struct {
	cfg    resolved
	getenv func(string) string
	logger *slog.Logger
	http   *httpstream.Client
	policy retry.Policy
	// noStreamOptions is set once the server refused stream_options:
	// later requests go without it (and without a usage chunk).
	noStreamOptions atomic.Bool
}

var (
	_ llm.Provider          = (*Provider)(nil)
	_ llm.CredentialChecker = (*Provider)(nil)
)

// New returns a Provider for cfg. It fails only on an invalid Config.
func New(cfg Config, opts ...Option) (*Provider, error) {
	o := options{getenv: os.Getenv, now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	if o.client == nil {
		o.client = &http.Client{}
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	r, err := resolve(cfg, o.getenv)
	if err != nil {
		return nil, err
	}
	return &Provider{
		cfg:    r,
		getenv: o.getenv,
		logger: o.logger,
		http:   &httpstream.Client{HTTP: o.client, Logger: o.logger, IdleTimeout: r.idleTimeout, Provider: "openai"},
		policy: retry.Policy{MaxRetries: r.MaxRetries, Sleep: o.sleep, Now: o.now},
	}, nil
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return "openai" }

// CheckCredentials implements llm.CredentialChecker. Loopback servers need
// no key.
func (p *Provider) CheckCredentials() error {
	if p.getenv(p.cfg.APIKeyEnv) == "" && !p.cfg.keyOptional {
		return p.missingKey()
	}
	return nil
}

func (p *Provider) missingKey() *llm.Error {
	return &llm.Error{
		Kind:    llm.ErrMissingAPIKey,
		Message: fmt.Sprintf("set %s to your API key for %s (it is empty or unset)", p.cfg.APIKeyEnv, p.cfg.BaseURL),
		KeyEnv:  p.cfg.APIKeyEnv,
	}
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	if sink == nil {
		sink = func(llm.Delta) {}
	}
	key := p.getenv(p.cfg.APIKeyEnv)
	if key == "" && !p.cfg.keyOptional {
		return nil, p.missingKey()
	}
	step := *req
	if step.Model == "" {
		step.Model = p.cfg.Model
	}
	if step.Model == "" {
		return nil, &llm.Error{Kind: llm.ErrInvalid, Message: "no model configured for the openai provider"}
	}
	if step.MaxTokens <= 0 {
		step.MaxTokens = p.cfg.MaxTokens
	}
	be := backendFor(step.Model, p.cfg.BaseURL)
	field := p.cfg.MaxTokensField
	if field == "" {
		field = llm.CapsOf(step.Model).MaxTokensField
	}
	streamUsage := !p.noStreamOptions.Load()
	for adjusted := false; ; adjusted = true {
		payload, err := encodeFor(&step, be, field, streamUsage)
		if err != nil {
			return nil, &llm.Error{Kind: llm.ErrInvalid, Message: err.Error(), Err: err}
		}
		out, err := p.send(ctx, payload, key, sink)
		if adjusted || err == nil {
			return out, err
		}
		// A server that names a field it does not take gets the request
		// again, once, without it: cordis cannot know every backend.
		switch refused := refusedField(err); {
		case refused == "stream_options" && streamUsage:
			p.noStreamOptions.Store(true)
			streamUsage = false
		case refused == "max_tokens" && field == "max_tokens" && step.MaxTokens > 0:
			field = "max_completion_tokens"
		default:
			return out, err
		}
		p.logger.Debug("openai resend without a refused field", "field", refusedField(err))
	}
}

// refusedField returns the request field a 400 says the server does not
// take ("stream_options", or "max_tokens" when it asks for
// max_completion_tokens instead), or "".
func refusedField(err error) string {
	var e *llm.Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusBadRequest {
		return ""
	}
	switch msg := e.Message; {
	case strings.Contains(msg, "stream_options"):
		return "stream_options"
	case strings.Contains(msg, "max_completion_tokens") && strings.Contains(msg, "max_tokens"):
		return "max_tokens"
	}
	return ""
}

// send posts one body, with retries, and decodes the stream.
func (p *Provider) send(ctx context.Context, payload []byte, key string, sink func(llm.Delta)) (*llm.Response, error) {
	var body *httpstream.Stream
	_, err := p.policy.Do(ctx, func(ctx context.Context, n int) (*http.Response, error) {
		stream, resp, err := p.http.Open(ctx, func(ctx context.Context) (*http.Request, error) {
			r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.BaseURL+"/chat/completions", bytes.NewReader(payload))
			if err != nil {
				return nil, err
			}
			if key != "" {
				r.Header.Set("Authorization", "Bearer "+key)
			}
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "text/event-stream")
			return r, nil
		}, key, classifyHTTPError)
		body = stream
		return resp, err
	}, func(msg string) {
		p.logger.Debug("openai retry", "reason", msg)
		sink(llm.Delta{Kind: llm.DeltaRetry, Text: msg})
	})
	if err != nil {
		return nil, err
	}
	defer body.Close()

	out, err := decodeStream(body, sink)
	if err != nil {
		err = body.Failure(ctx, "openai", err)
		p.logger.Debug("openai stream failed", "error", err)
		return out, err
	}
	p.logger.Debug("openai stream done", "id", out.ID, "model", out.Model, "stop_reason", out.StopReason,
		"input_tokens", out.Usage.InputTokens, "output_tokens", out.Usage.OutputTokens)
	return out, nil
}

// classifyHTTPError maps a non-200 response. Servers disagree on the body:
// {"error":{"message","type","code"}} (OpenAI, DeepSeek), {"error":"text"},
// or {"message"|"detail": ...}; anything else is used as text.
func classifyHTTPError(resp *http.Response, raw []byte) *llm.Error {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	var e apiError
	if json.Unmarshal(raw, &body) == nil {
		var text string
		switch {
		case json.Unmarshal(body.Error, &e) == nil && e.Message != "":
		case json.Unmarshal(body.Error, &text) == nil && text != "":
			e.Message = text
		case body.Message != "":
			e.Message = body.Message
		case json.Unmarshal(body.Detail, &text) == nil && text != "":
			e.Message = text
		}
	}
	if e.Message == "" {
		e.Message = httpstream.BodyText(raw)
	}
	if e.code() == "context_length_exceeded" && !strings.Contains(e.Message, "context_length_exceeded") {
		// The code is what says it (llm.IsContextLength reads the
		// message); GPT-5's text ("Input tokens exceed…") varies.
		e.Message += " (context_length_exceeded)"
	}
	return retry.HTTPError(resp.StatusCode, resp.Header, kindForError(&e, resp.StatusCode), e.Message)
}

// statusCode returns code when it is an HTTP error status, else 0.
func statusCode(code string) int {
	n, err := strconv.Atoi(code)
	if err != nil || n < 400 || n > 599 {
		return 0
	}
	return n
}

// kindForError classifies an error object; status 0 means "inside a 200
// stream", where only the object can tell.
func kindForError(e *apiError, status int) llm.ErrorKind {
	code, typ := e.code(), e.Type
	switch {
	case code == "insufficient_quota" || typ == "insufficient_quota" ||
		strings.Contains(strings.ToLower(e.Message), "insufficient balance"):
		return llm.ErrSpendLimit
	case status != 0:
		return retry.KindForStatus(status)
	case statusCode(code) != 0:
		// OpenRouter's error chunks carry the upstream HTTP status as
		// their code (429, 502, ...).
		return retry.KindForStatus(statusCode(code))
	case code == "rate_limit_exceeded" || typ == "rate_limit_error" || typ == "rate_limit_exceeded":
		return llm.ErrRateLimit
	case code == "invalid_api_key" || typ == "authentication_error":
		return llm.ErrAuth
	case typ == "invalid_request_error":
		return llm.ErrInvalid
	case code == "context_length_exceeded":
		return llm.ErrInvalid
	case typ == "overloaded_error" || code == "overloaded":
		return llm.ErrOverloaded
	}
	return llm.ErrServer
}
