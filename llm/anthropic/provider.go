package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/internal/httpstream"
	"github.com/cordis-agent/cordis/llm/internal/retry"
)

// Provider streams steps from the Anthropic Messages API.
type Provider struct {
	cfg     resolved
	getenv  func(string) string
	logger  *slog.Logger
	http    *httpstream.Client
	policy  retry.Policy
	breaker *breaker // nil without a fallback model
}

var (
	_ llm.Provider          = (*Provider)(nil)
	_ llm.CredentialChecker = (*Provider)(nil)
)

// New returns a Provider for cfg. It fails only on an invalid Config; a
// missing API key is reported by CheckCredentials and Stream, because the
// key is read from the environment on every call.
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
	p := &Provider{
		cfg:    r,
		getenv: o.getenv,
		logger: o.logger,
		http:   &httpstream.Client{HTTP: o.client, Logger: o.logger, IdleTimeout: r.idleTimeout, Provider: "anthropic"},
		policy: retry.Policy{MaxRetries: r.MaxRetries, Sleep: o.sleep, Now: o.now},
	}
	if r.FallbackModel != "" {
		p.breaker = newBreaker(r.FallbackAfter, r.fallbackCooldown, o.now)
	}
	return p, nil
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return "anthropic" }

// ServesWebSearch implements llm.WebSearcher: the Messages API runs a
// web search itself when Request.WebSearch is set.
func (p *Provider) ServesWebSearch() bool { return true }

// CheckCredentials implements llm.CredentialChecker.
func (p *Provider) CheckCredentials() error {
	if p.getenv(p.cfg.APIKeyEnv) == "" {
		return p.missingKey()
	}
	return nil
}

func (p *Provider) missingKey() *llm.Error {
	return &llm.Error{
		Kind:    llm.ErrMissingAPIKey,
		Message: fmt.Sprintf("set %s to your Anthropic API key (it is empty or unset)", p.cfg.APIKeyEnv),
		KeyEnv:  p.cfg.APIKeyEnv,
	}
}

// openStream is the attempt whose body is being decoded.
type openStream struct {
	body    *httpstream.Stream
	primary bool // the attempt used the primary model (breaker bookkeeping)
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	if sink == nil {
		sink = func(llm.Delta) {}
	}
	key := p.getenv(p.cfg.APIKeyEnv)
	if key == "" {
		return nil, p.missingKey()
	}
	step := p.withDefaults(req)
	if step.Model == "" {
		return nil, &llm.Error{Kind: llm.ErrInvalid, Message: "no model configured for the anthropic provider"}
	}

	var open openStream
	_, err := p.policy.Do(ctx, func(ctx context.Context, n int) (*http.Response, error) {
		return p.attempt(ctx, &step, key, &open)
	}, func(msg string) {
		p.logger.Debug("anthropic retry", "reason", msg)
		sink(llm.Delta{Kind: llm.DeltaRetry, Text: msg})
	})
	if err != nil {
		return nil, err
	}
	defer open.body.Close()

	out, err := DecodeStream(open.body, sink)
	if err != nil {
		if llm.ErrorKindOf(err) == llm.ErrOverloaded {
			p.record(open.primary, outcomeOverloaded)
		}
		err = open.body.Failure(ctx, "anthropic", err)
		p.logger.Debug("anthropic stream failed", "error", err)
		return out, err
	}
	p.logger.Debug("anthropic stream done", "id", out.ID, "model", out.Model, "stop_reason", out.StopReason,
		"input_tokens", out.Usage.InputTokens, "output_tokens", out.Usage.OutputTokens)
	return out, nil
}

// withDefaults fills the request fields the config supplies.
func (p *Provider) withDefaults(req *llm.Request) llm.Request {
	step := *req
	if step.Model == "" {
		step.Model = p.cfg.Model
	}
	if step.MaxTokens <= 0 {
		step.MaxTokens = p.cfg.MaxTokens
	}
	if step.ThinkingBudget <= 0 {
		step.ThinkingBudget = p.cfg.ThinkingBudget
	}
	return step
}

// pickModel applies the circuit breaker; primary reports whether the
// attempt's outcome must be recorded.
func (p *Provider) pickModel(requested string) (model string, primary bool) {
	if p.breaker == nil || requested == p.cfg.FallbackModel {
		return requested, false
	}
	if p.breaker.allowPrimary() {
		return requested, true
	}
	return p.cfg.FallbackModel, false
}

func (p *Provider) record(primary bool, o attemptOutcome) {
	if primary {
		p.breaker.record(o)
	}
}

// attempt sends the request once and, on success, leaves the open stream
// in open.
func (p *Provider) attempt(ctx context.Context, step *llm.Request, key string, open *openStream) (*http.Response, error) {
	model, primary := p.pickModel(step.Model)
	payload, err := EncodeRequest(step, model)
	if err != nil {
		p.record(primary, outcomeOther) // frees a half-open probe slot
		return nil, &llm.Error{Kind: llm.ErrInvalid, Message: err.Error(), Err: err}
	}
	body, resp, err := p.http.Open(ctx, func(ctx context.Context) (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.BaseURL+"/v1/messages", bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		r.Header.Set("X-Api-Key", key)
		r.Header.Set("Anthropic-Version", APIVersion)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "text/event-stream")
		return r, nil
	}, key, classifyHTTPError)
	switch {
	case err == nil:
		p.record(primary, outcomeSuccess)
		*open = openStream{body: body, primary: primary}
	case llm.ErrorKindOf(err) == llm.ErrOverloaded:
		p.record(primary, outcomeOverloaded)
	default:
		p.record(primary, outcomeOther)
	}
	return resp, err
}

// classifyHTTPError maps a non-200 response. The body is
// {"type":"error","error":{"type","message","details"}}; when it is not, the
// status decides and the raw text becomes the message.
func classifyHTTPError(resp *http.Response, raw []byte) *llm.Error {
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Details struct {
				ErrorCode string `json:"error_code"`
			} `json:"details"`
		} `json:"error"`
	}
	message := ""
	kind := retry.KindForStatus(resp.StatusCode)
	if json.Unmarshal(raw, &body) == nil && body.Error.Type != "" {
		message = body.Error.Message
		if k := kindForErrorType(body.Error.Type); k != "" {
			kind = k
		}
	} else {
		message = httpstream.BodyText(raw)
	}
	if resp.StatusCode == http.StatusTooManyRequests &&
		(body.Error.Details.ErrorCode == "enforced_spend_limit_reached" || strings.Contains(strings.ToLower(message), "spend limit")) {
		kind = llm.ErrSpendLimit
	}
	return retry.HTTPError(resp.StatusCode, resp.Header, kind, message)
}
