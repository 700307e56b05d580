package looptest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/loop"
)

// Options shape a Harness; the zero value is an agent without hooks in
// the default mode, behind an editor without capabilities.
type Options struct {
	Hooks hooks.Seams
	Mode  string // loop.Config.DefaultMode
	Caps  acp.ClientCapabilities
	// Anthropic is the provider's config. BaseURL is always the model
	// server; Model defaults to claude-test and MaxRetries to 2.
	Anthropic anthropic.Config
	// AnthropicOptions come after the harness's own (a test API key,
	// retries without waiting), so they may replace them.
	AnthropicOptions []anthropic.Option
	// Config edits the agent's config before the agent starts.
	Config func(*loop.Config)
}

// Harness is a loop.Agent served in-process to a scripted editor, talking
// to a scripted model. Tests may change Cwd before they open a session.
type Harness struct {
	t        testing.TB
	Model    *ModelServer
	Editor   *acptest.Editor
	Ctx      context.Context // ends after 60s, or with the test
	Cwd      string          // the cwd of NewSession, a fresh directory
	StateDir string          // loop.Config.StateDir
	Init     *acp.InitializeResponse
}

// NewHarness starts a model server with script, an agent using it, and an
// editor that has initialized the agent.
func NewHarness(t testing.TB, o Options, script ...http.HandlerFunc) *Harness {
	t.Helper()
	ms := NewModelServer(t, script...)
	pcfg := o.Anthropic
	pcfg.BaseURL = ms.URL()
	if pcfg.Model == "" {
		pcfg.Model = "claude-test"
	}
	if pcfg.MaxRetries == 0 {
		pcfg.MaxRetries = 2
	}
	noWait := anthropic.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() })
	prov := AnthropicProvider(t, pcfg, append([]anthropic.Option{noWait}, o.AnthropicOptions...)...)
	cfg := loop.Config{Provider: prov, Model: pcfg.Model, StateDir: t.TempDir(), Hooks: o.Hooks, DefaultMode: o.Mode}
	if o.Config != nil {
		o.Config(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	h := &Harness{t: t, Model: ms, Ctx: ctx, Cwd: t.TempDir(), StateDir: cfg.StateDir}
	h.Editor = acptest.Start(t, loop.New(cfg))
	h.Init = h.Editor.Initialize(ctx, o.Caps)
	return h
}

// NewSession opens a session in Cwd and returns its id.
func (h *Harness) NewSession() string {
	return h.Editor.NewSession(h.Ctx, h.Cwd).SessionID
}

// Prompt runs one turn and returns how it ended; an error fails the test.
func (h *Harness) Prompt(sid, text string) acp.StopReason {
	h.t.Helper()
	stop, err := h.Editor.Prompt(h.Ctx, sid, text)
	if err != nil {
		h.t.Fatalf("prompt: %v", err)
	}
	return stop
}

// AnthropicProvider is an Anthropic provider for cfg that finds a test API
// key in its environment, whatever the process's environment holds.
func AnthropicProvider(t testing.TB, cfg anthropic.Config, opts ...anthropic.Option) *anthropic.Provider {
	t.Helper()
	testKey := anthropic.WithGetenv(func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return "test-key"
		}
		return ""
	})
	prov, err := anthropic.New(cfg, append([]anthropic.Option{testKey}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return prov
}
