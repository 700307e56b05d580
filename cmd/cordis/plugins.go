package main

import (
	_ "embed"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/llm"
	"github.com/cordis-agent/cordis/loop/llm/anthropic"
	"github.com/cordis-agent/cordis/loop/llm/openai"
)

// defaultConfig runs when no config file is found: the Anthropic provider
// from ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL.
//
//go:embed default.yml
var defaultConfig []byte

// agentConfig is the `agent` plugin: settings of the loop itself.
type agentConfig struct {
	Models           []string `yaml:"models,omitempty" json:"models,omitempty" jsonschema:"description=Models offered in the editor's model picker; the provider's model is always included"`
	DefaultMode      string   `yaml:"defaultMode,omitempty" json:"defaultMode,omitempty" jsonschema:"enum=default,enum=acceptEdits,enum=plan,enum=bypassPermissions,description=Permission mode of new sessions (default: default)"`
	MaxTurnRequests  int      `yaml:"maxTurnRequests,omitempty" json:"maxTurnRequests,omitempty" jsonschema:"minimum=1,description=Model requests allowed in one prompt turn before it stops with max_turn_requests (default 100)"`
	MaxStopBlocks    int      `yaml:"maxStopBlocks,omitempty" json:"maxStopBlocks,omitempty" jsonschema:"minimum=1,description=Consecutive Stop-hook blocks honoured before the turn ends anyway (default 8)"`
	MaxSubagentDepth int      `yaml:"maxSubagentDepth,omitempty" json:"maxSubagentDepth,omitempty" jsonschema:"minimum=1,description=How deep Task subagents may nest (default 1)"`
	ContextWindow    int      `yaml:"contextWindow,omitempty" json:"contextWindow,omitempty" jsonschema:"minimum=1,description=Context window in tokens reported in usage updates (default 200000)"`
	SystemPrompt     string   `yaml:"systemPrompt,omitempty" json:"systemPrompt,omitempty" jsonschema:"description=Replaces the built-in base system prompt"`
	ExtraDirectories []string `yaml:"extraDirectories,omitempty" json:"extraDirectories,omitempty" jsonschema:"description=Absolute directories tools may use besides the session's working directory"`
}

// newRegistry lists every plugin compiled into cordis.
func newRegistry() *config.Registry {
	reg := &config.Registry{}
	reg.Register("agent", func() any { return &agentConfig{} }, "Settings of the agent loop: models offered, permission mode, limits")
	reg.Register("llm/anthropic", func() any { return &anthropic.Config{} }, "Anthropic Messages API (streaming); key from ANTHROPIC_API_KEY")
	reg.Register("llm/openai", func() any { return &openai.Config{} }, "OpenAI-compatible Chat Completions API (OpenAI, DeepSeek, local servers)")
	return reg
}

// loadAgentConfig finds and loads the config and builds the loop's Config
// from its plugins.
func loadAgentConfig(flagPath, stateDir string, logger *slog.Logger) (*loop.Config, error) {
	cwd, _ := os.Getwd()
	userDir, _ := os.UserConfigDir()
	reg := newRegistry()
	path, found := config.Locate(flagPath, os.Getenv, cwd, userDir)
	var (
		cfg *config.Config
		err error
	)
	if found {
		cfg, err = config.Load(path, reg, os.Getenv)
	} else {
		cfg, err = config.Parse(defaultConfig, config.EmbeddedSource, reg, os.Getenv)
	}
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		logger.Warn("config", "warning", w)
	}
	return assemble(cfg, stateDir, logger)
}

func assemble(cfg *config.Config, stateDir string, logger *slog.Logger) (*loop.Config, error) {
	out := &loop.Config{StateDir: stateDir, Logger: logger}
	var providers []string
	for _, p := range cfg.Enabled() {
		switch c := p.Config.(type) {
		case *agentConfig:
			out.Models = c.Models
			out.DefaultMode = c.DefaultMode
			out.MaxTurnRequests = c.MaxTurnRequests
			out.MaxStopBlocks = c.MaxStopBlocks
			out.MaxSubagentDepth = c.MaxSubagentDepth
			out.ContextWindow = c.ContextWindow
			out.SystemPrompt = c.SystemPrompt
			for _, d := range c.ExtraDirectories {
				if !filepath.IsAbs(d) {
					return nil, fmt.Errorf("%s: entry %q: extraDirectories must be absolute, got %q", p.Source, p.ID, d)
				}
			}
			out.ExtraDirectories = c.ExtraDirectories
		case *anthropic.Config:
			prov, err := anthropic.New(*c, anthropic.WithLogger(logger))
			if err != nil {
				return nil, fmt.Errorf("%s: entry %q: %v", p.Source, p.ID, err)
			}
			out.Provider, out.Model, out.MaxTokens = prov, firstNonEmpty(c.Model, "claude-sonnet-4-5"), c.MaxTokens
			out.ThinkingBudget = c.ThinkingBudget
			providers = append(providers, p.ID)
		case *openai.Config:
			prov, err := openai.New(*c, openai.WithLogger(logger))
			if err != nil {
				return nil, fmt.Errorf("%s: entry %q: %v", p.Source, p.ID, err)
			}
			out.Provider, out.Model, out.MaxTokens = prov, c.Model, c.MaxTokens
			providers = append(providers, p.ID)
		default:
			return nil, fmt.Errorf("%s: entry %q: plugin %s is registered but not wired", p.Source, p.ID, p.Name)
		}
	}
	switch len(providers) {
	case 0:
		return nil, fmt.Errorf("no model provider enabled: add an llm/anthropic or llm/openai entry to the config")
	case 1:
	default:
		return nil, fmt.Errorf("%d model providers enabled (%s): disable all but one", len(providers), strings.Join(providers, ", "))
	}
	if out.Model == "" {
		return nil, fmt.Errorf("the model provider %s has no model: set config.model", providers[0])
	}
	var _ llm.Provider = out.Provider
	return out, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
