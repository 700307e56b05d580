package replay

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/anthropic"
)

// replayBaseURL is where replayed requests "go": nothing is dialled, the
// transport answers in process.
const replayBaseURL = "http://replay.invalid"

// Provider is the llm/replay provider: the Anthropic provider with a
// transport that answers from a fixture (replay) or records what the live
// API answers (record).
type Provider struct {
	inner *anthropic.Provider
	meta  Meta
	mode  string
	state *state
}

var (
	_ llm.Provider          = (*Provider)(nil)
	_ llm.CredentialChecker = (*Provider)(nil)
)

// Option customises New.
type Option func(*options)

type options struct {
	getenv func(string) string
	logger *slog.Logger
	base   http.RoundTripper
}

// WithGetenv replaces os.Getenv. Replay reads only RunDirEnv through it;
// record mode also hands it to the Anthropic provider, which reads the key
// and ANTHROPIC_BASE_URL.
func WithGetenv(getenv func(string) string) Option { return func(o *options) { o.getenv = getenv } }

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithRecordTransport sets the transport record mode forwards to (default
// http.DefaultTransport).
func WithRecordTransport(rt http.RoundTripper) Option { return func(o *options) { o.base = rt } }

// New opens the fixture named by cfg and, when RunDirEnv is set, the run
// directory. In replay mode a missing or malformed fixture is an error
// here, before any session starts.
func New(cfg Config, opts ...Option) (*Provider, error) {
	o := options{getenv: os.Getenv, base: http.DefaultTransport}
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Fixture == "" {
		return nil, fmt.Errorf("llm/replay: fixture is empty (the snapshot harness sets CORDIS_FIXTURE)")
	}
	dir, err := filepath.Abs(cfg.Fixture)
	if err != nil {
		return nil, err
	}
	s := &state{logger: o.logger, scenario: filepath.Base(dir), run: Run{Mode: ModeReplay}, ledger: &Ledger{}}
	if runDir := o.getenv(RunDirEnv); runDir != "" {
		if s.run, err = ReadRun(runDir); err != nil {
			return nil, err
		}
		if s.ledger, err = ReadLedger(runDir); err != nil {
			return nil, err
		}
		s.runDir = runDir
	}
	s.paths = NewPathReplacer(s.run.Paths)

	p := &Provider{mode: s.run.Mode, state: s}
	var client *http.Client
	acfg := anthropic.Config{}
	aopts := []anthropic.Option{anthropic.WithLogger(o.logger)}
	switch s.run.Mode {
	case ModeRecord:
		p.meta, err = LoadMeta(dir)
		if err != nil {
			return nil, err
		}
		client = &http.Client{Transport: recordTransport{s: s, base: o.base}}
		aopts = append(aopts, anthropic.WithGetenv(o.getenv))
	default:
		fx, err := Load(dir)
		if err != nil {
			return nil, err
		}
		s.fx, p.meta = fx, fx.Meta
		client = &http.Client{Transport: replayTransport{s: s}}
		// A placeholder key: replay never reads one.
		aopts = append(aopts, anthropic.WithGetenv(func(name string) string {
			if name == anthropic.DefaultAPIKeyEnv {
				return "replay-without-a-key"
			}
			return ""
		}))
		acfg.BaseURL = replayBaseURL
		acfg.MaxRetries = -1
	}
	acfg.Model, acfg.MaxTokens = p.meta.Model, p.meta.MaxTokens
	aopts = append(aopts, anthropic.WithHTTPClient(client))
	if p.inner, err = anthropic.New(acfg, aopts...); err != nil {
		return nil, err
	}
	return p, nil
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return "replay" }

// ServesWebSearch implements llm.WebSearcher: true when the fixture was
// recorded with web search (Meta.WebSearch).
func (p *Provider) ServesWebSearch() bool { return p.meta.WebSearch && p.inner.ServesWebSearch() }

// Model is the model the fixture was recorded with.
func (p *Provider) Model() string { return p.meta.Model }

// MaxTokens is the fixture's max_tokens.
func (p *Provider) MaxTokens() int { return p.meta.MaxTokens }

// Mode is ModeReplay or ModeRecord.
func (p *Provider) Mode() string { return p.mode }

// CheckCredentials implements llm.CredentialChecker: replay needs no key;
// record mode needs the live provider's.
func (p *Provider) CheckCredentials() error {
	if p.mode == ModeRecord {
		return p.inner.CheckCredentials()
	}
	return nil
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	return p.inner.Stream(ctx, req, sink)
}
