package main

import (
	"io"
	"log/slog"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
	"github.com/cordis-agent/cordis/internal/trust"
)

// agent.webFetch reaches the loop's WebFetch options: private ranges
// parsed (a bare address is its own range), durations and limits checked.
func TestWebFetchConfig(t *testing.T) {
	assembleAgent := func(webFetch string) (*webOptionsView, error) {
		text := "- id: agent\n  name: agent\n  config: {webFetch: " + webFetch + "}\n- id: llm\n  name: llm/anthropic\n  config: {model: m}\n"
		cfg, err := config.Parse([]byte(text), "test.yml", newRegistry(), os.Getenv)
		if err != nil {
			return nil, err
		}
		lc, err := assemble(cfg, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)), nil, credentialFile{})
		if err != nil {
			return nil, err
		}
		if lc.Web == nil {
			return nil, nil
		}
		w := lc.Web
		return &webOptionsView{w.AllowPrivate, w.AllowPrivateRanges, w.Timeout, w.MaxRedirects, w.MaxBytes, w.MaxChars}, nil
	}
	got, err := assembleAgent("{}")
	if err != nil || got != nil {
		t.Fatalf("no settings: %+v, %v; want WebFetch's defaults (nil)", got, err)
	}
	got, err = assembleAgent(`{allowPrivateRanges: [127.0.0.1, "10.1.2.3/16", "::1"], timeout: 5s, maxRedirects: 2, maxBytes: 4096, maxChars: 1000}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("::1/128")}
	if got.allowPrivate || !slices.Equal(got.ranges, want) || got.timeout != 5*time.Second || got.maxRedirects != 2 || got.maxBytes != 4096 || got.maxChars != 1000 {
		t.Errorf("web options = %+v", got)
	}
	if got, err = assembleAgent(`{allowPrivateNetworks: true}`); err != nil || !got.allowPrivate {
		t.Errorf("allowPrivateNetworks: %+v, %v", got, err)
	}
	for input, wantErr := range map[string]string{
		`{allowPrivateRanges: [intranet]}`: `webFetch.allowPrivateRanges: want an IP address or a CIDR range like 10.1.0.0/16, got "intranet"`,
		`{timeout: soon}`:                  `webFetch.timeout: want a positive duration like 30s, got "soon"`,
		`{maxChars: -1}`:                   `webFetch.maxChars: want a positive number, got -1`,
		`{allowPrivate: true}`:             `unknown field "webFetch.allowPrivate"`,
	} {
		if _, err := assembleAgent(input); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: err = %v, want %q", input, err, wantErr)
		}
	}
}

// webOptionsView is the part of tools.WebOptions the config sets
// (the options hold a slice, so they are not comparable as they are).
type webOptionsView struct {
	allowPrivate bool
	ranges       []netip.Prefix
	timeout      time.Duration
	maxRedirects int
	maxBytes     int64
	maxChars     int
}

// A trusted project cordis.yml may lower WebFetch's limits but never let
// it reach private or loopback addresses: that would let a repository
// aim the model at the user's local services.
func TestProjectConfigWebFetch(t *testing.T) {
	dir := writeProject(t, `- id: agent
  name: agent
  config:
    webFetch:
      allowPrivateNetworks: true
      allowPrivateRanges: [127.0.0.1]
      timeout: 5s
      maxChars: 2000
      maxBytes: 99999999999
`)
	store := trust.Open(t.TempDir())
	trustProject(t, store, dir)
	base := builtinDefault()
	user := pluginConfig[*agentConfig](t, base, "agent")
	user.WebFetch.MaxBytes = 1 << 20
	o := applyProjectConfig(base, dir, store, newRegistry())
	refused := strings.Join(o.Refused, "\n")
	for _, want := range []string{
		"agent.webFetch.allowPrivateNetworks (a project may not let WebFetch reach private or loopback addresses)",
		"agent.webFetch.allowPrivateRanges (a project may not let WebFetch reach private or loopback addresses)",
		"agent.webFetch.maxBytes (a project may only set or lower a limit)",
	} {
		if !strings.Contains(refused, want) {
			t.Errorf("refusals lack %q:\n%s", want, refused)
		}
	}
	if applied := strings.Join(o.Applied, ","); applied != "agent.webFetch.timeout,agent.webFetch.maxChars" {
		t.Errorf("applied %s", applied)
	}
	w := user.WebFetch
	if w.AllowPrivateNetworks || w.AllowPrivateRanges != nil || w.Timeout != "5s" || w.MaxChars != 2000 || w.MaxBytes != 1<<20 {
		t.Errorf("webFetch after the project = %+v", w)
	}
}

// agent.webFetch.model names the small model that applies WebFetch's
// prompt; off (or nothing) leaves the page as the result.
func TestWebFetchSummaryModelConfig(t *testing.T) {
	for model, want := range map[string]string{"claude-haiku-4-5": "claude-haiku-4-5", "off": "", `" gpt-4o-mini "`: "gpt-4o-mini"} {
		text := "- id: agent\n  name: agent\n  config: {webFetch: {model: " + model + "}}\n- id: llm\n  name: llm/anthropic\n  config: {model: m}\n"
		cfg, err := config.Parse([]byte(text), "test.yml", newRegistry(), os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		lc, err := assemble(cfg, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)), nil, credentialFile{})
		if err != nil {
			t.Fatal(err)
		}
		if lc.Web == nil || lc.Web.SummaryModel != want {
			t.Errorf("model %s: web options %+v, want the small model %q", model, lc.Web, want)
		}
	}
}

// A trusted project may turn WebFetch's small model off, or choose one
// that costs no more than the user's (by the model table), but never
// turn one on or choose a dearer or unknown one: each is a model call
// per fetch, billed to the user.
func TestProjectConfigWebFetchModel(t *testing.T) {
	for _, c := range []struct {
		user, project string
		want          string // the user's setting after the project; "" when refused
		refusal       string
	}{
		{user: "claude-haiku-4-5", project: "off", want: "off"},
		{user: "claude-haiku-4-5", project: `""`, want: "off"},
		{user: "claude-sonnet-4-5", project: "claude-haiku-4-5", want: "claude-haiku-4-5"},
		{user: "", project: "claude-haiku-4-5", refusal: "a project may turn WebFetch's small model off, not on"},
		{user: "off", project: "claude-haiku-4-5", refusal: "a project may turn WebFetch's small model off, not on"},
		{user: "claude-haiku-4-5", project: "claude-opus-4-5", refusal: "a project may only choose a small model for WebFetch that costs no more than the user's claude-haiku-4-5, by the model table"},
		{user: "claude-haiku-4-5", project: "someones-model", refusal: "costs no more than the user's claude-haiku-4-5"},
	} {
		dir := writeProject(t, "- id: agent\n  name: agent\n  config:\n    webFetch:\n      model: "+c.project+"\n")
		store := trust.Open(t.TempDir())
		trustProject(t, store, dir)
		base := builtinDefault()
		user := pluginConfig[*agentConfig](t, base, "agent")
		user.WebFetch.Model = c.user
		o := applyProjectConfig(base, dir, store, newRegistry())
		if c.refusal != "" {
			if len(o.Refused) != 1 || !strings.HasPrefix(o.Refused[0], "agent.webFetch.model (") || !strings.Contains(o.Refused[0], c.refusal) || user.WebFetch.Model != c.user {
				t.Errorf("user %q, project %q: refused %q, model now %q; want refused with %q", c.user, c.project, o.Refused, user.WebFetch.Model, c.refusal)
			}
			continue
		}
		if len(o.Refused) != 0 || strings.Join(o.Applied, ",") != "agent.webFetch.model" || user.WebFetch.Model != c.want {
			t.Errorf("user %q, project %q: applied %q, refused %q, model now %q; want %q", c.user, c.project, o.Applied, o.Refused, user.WebFetch.Model, c.want)
		}
	}
}
