package config_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
)

// Fake plugin config types, shaped like real ones: defaults from the
// constructor, nested structs, maps, lists and a duration.
type llmConfig struct {
	Model     string            `yaml:"model"`
	MaxTokens int               `yaml:"maxTokens"`
	Retry     retryConfig       `yaml:"retry"`
	Headers   map[string]string `yaml:"headers"`
	Stop      []string          `yaml:"stop"`
}

type retryConfig struct {
	Attempts int           `yaml:"attempts"`
	Backoff  time.Duration `yaml:"backoff"`
}

type replayConfig struct {
	Fixture string `yaml:"fixture"`
}

type bridgeConfig struct {
	Path   string   `yaml:"path"`
	Events []string `yaml:"events"`
}

func testRegistry() *config.Registry {
	var reg config.Registry
	reg.Register("llm/anthropic", func() any { return &llmConfig{Model: "claude-sonnet-4-5", MaxTokens: 4096} }, "Anthropic Messages API")
	reg.Register("llm/replay", func() any { return &replayConfig{} }, "Serves recorded responses")
	reg.Register("bridge/claude", func() any { return &bridgeConfig{Path: ".claude/settings.json"} }, "Claude Code hooks")
	reg.Register("bridge/codex", func() any { return &bridgeConfig{Path: ".codex/hooks.json"} }, "Codex hooks")
	return &reg
}

func TestRegistryNames(t *testing.T) {
	got := testRegistry().Names()
	want := []string{"bridge/claude", "bridge/codex", "llm/anthropic", "llm/replay"}
	if !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	var nilRegistry *config.Registry
	if names := nilRegistry.Names(); len(names) != 0 {
		t.Errorf("nil registry Names() = %q, want none", names)
	}
}

type untagged struct {
	Model string
}

type nestedUntagged struct {
	Retry struct {
		Attempts int
	} `yaml:"retry"`
}

type recursive struct {
	Next *recursive `yaml:"next"`
}

type withFunc struct {
	Hook func() `yaml:"hook"`
}

type inlineMap struct {
	Extra map[string]string `yaml:",inline"`
}

type duplicateKeys struct {
	A string `yaml:"x"`
	B string `yaml:"x"`
}

type inlined struct {
	retryConfig `yaml:",inline"`
	Skipped     string `yaml:"-"`
	hidden      string // unexported: ignored by yaml.v3, so allowed untagged
}

func TestRegisterRejectsUnusableTypes(t *testing.T) {
	tests := []struct {
		name      string
		plugin    string
		newConfig func() any
		wantPanic string // from Register; substring, "" means no panic
		wantCheck string // from Check; substring, "" means no error
	}{
		{"inline and skipped fields", "ok/inline", func() any { return &inlined{} }, "", ""},
		{"empty config", "ok/empty", func() any { return &struct{}{} }, "", ""},
		{"empty name", "", func() any { return &struct{}{} }, "non-empty", ""},
		{"name with space", "llm anthropic", func() any { return &struct{}{} }, "without spaces", ""},
		{"duplicate", "llm/anthropic", func() any { return &struct{}{} }, "registered twice", ""},
		{"nil constructor", "x/nil", nil, "newConfig is nil", ""},
		{"not a pointer", "x/value", func() any { return untagged{} }, "pointer to a struct", ""},
		{"nil pointer", "x/nilptr", func() any { return (*untagged)(nil) }, "pointer to a struct", ""},
		{"untagged field", "x/untagged", func() any { return &untagged{} }, "", "untagged.Model: needs a yaml tag"},
		{"nested untagged field", "x/nested", func() any { return &nestedUntagged{} }, "", "Attempts: needs a yaml tag"},
		{"recursive", "x/recursive", func() any { return &recursive{} }, "", "recursive"},
		{"func field", "x/func", func() any { return &withFunc{} }, "", "cannot be configured"},
		{"inline map", "x/inlinemap", func() any { return &inlineMap{} }, "", "only structs can be inlined"},
		{"duplicate keys", "x/dupkeys", func() any { return &duplicateKeys{} }, "", `key "x" is defined twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := testRegistry()
			if err := reg.Check(); err != nil {
				t.Fatalf("the test registry fails Check: %v", err)
			}
			func() {
				defer func() {
					r := recover()
					switch {
					case tt.wantPanic == "" && r != nil:
						t.Fatalf("Register panicked: %v", r)
					case tt.wantPanic != "" && r == nil:
						t.Fatalf("Register did not panic, want %q", tt.wantPanic)
					case r != nil && !strings.Contains(r.(string), tt.wantPanic):
						t.Fatalf("Register panicked with %q, want it to mention %q", r, tt.wantPanic)
					}
				}()
				reg.Register(tt.plugin, tt.newConfig, "")
			}()
			err := reg.Check()
			switch {
			case tt.wantCheck == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tt.wantCheck != "" && (err == nil || !strings.Contains(err.Error(), tt.wantCheck) || !strings.Contains(err.Error(), tt.plugin)):
				t.Fatalf("Check = %v, want an error naming %q and mentioning %q", err, tt.plugin, tt.wantCheck)
			}
			if tt.wantCheck != "" {
				if _, err := reg.Schema(); err == nil {
					t.Fatal("Schema succeeded over a registry that fails Check")
				}
			}
		})
	}
}
