package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/llm"
)

// A trusted project may lower a model's window or output limit, and the
// agent's window cap, but never raise them, price a model, change what a
// model accepts, or lower a whole prefix of models.
func TestProjectModelTablePolicy(t *testing.T) {
	dir := writeProject(t, `- id: agent
  name: agent
  config:
    contextWindow: 150000
    modelTable:
      claude-sonnet-4-5: {contextWindow: 100000, maxOutput: 9000}
      gpt-4.1: {contextWindow: 2000000}
      claude-opus-4-6: {inputPrice: 0, outputPrice: 0, images: false}
      "local-*": {contextWindow: 1000}
`)
	store := trust.Open(t.TempDir())
	trustProject(t, store, dir)
	base := builtinDefault()
	o := applyProjectConfig(base, dir, store, newRegistry())
	refused := strings.Join(o.Refused, "\n")
	for _, want := range []string{
		"agent.modelTable.gpt-4.1.contextWindow (a project may only lower a model's context window (1047576 for gpt-4.1))",
		"agent.modelTable.claude-opus-4-6.inputPrice (a project may not change a model's prices or capabilities",
		"agent.modelTable.claude-opus-4-6.outputPrice",
		"agent.modelTable.claude-opus-4-6.images",
		"agent.modelTable.local-*.contextWindow (a project may lower the limits of a named model, not of a prefix)",
	} {
		if !strings.Contains(refused, want) {
			t.Errorf("refusals lack %q:\n%s", want, refused)
		}
	}
	applied := strings.Join(o.Applied, ",")
	if applied != "agent.contextWindow,agent.modelTable.claude-sonnet-4-5.contextWindow,agent.modelTable.claude-sonnet-4-5.maxOutput" {
		t.Errorf("applied %s", applied)
	}
	agent := pluginConfig[*agentConfig](t, base, "agent")
	if agent.ContextWindow != 150000 || len(agent.ModelTable) != 1 || agent.ModelTable["claude-sonnet-4-5"].ContextWindow != 100000 || agent.ModelTable["claude-sonnet-4-5"].MaxOutput != 9000 {
		t.Errorf("agent = %+v", agent)
	}
	table, err := modelTable(base)
	if err != nil {
		t.Fatal(err)
	}
	if got := table.Lookup("claude-sonnet-4-5-20250929"); got.ContextWindow != 100000 || got.Price == nil || got.Price.Input != 3 {
		t.Errorf("merged table: %+v", got)
	}

	// The agent's cap may only be lowered too.
	dir = writeProject(t, "- id: agent\n  name: agent\n  config: {contextWindow: 500000}\n")
	trustProject(t, store, dir)
	base = builtinDefault()
	pluginConfig[*agentConfig](t, base, "agent").ContextWindow = 200000
	if o := applyProjectConfig(base, dir, store, newRegistry()); !strings.Contains(strings.Join(o.Refused, ""), "agent.contextWindow (a project may only set or lower a limit)") {
		t.Errorf("raised the window cap: %v", o.Refused)
	}
}

// The user's overrides reach the agent's config and the providers' caps;
// a bad one fails the start with the file and entry named.
func TestModelTableFromConfig(t *testing.T) {
	defer llm.SetModelTable(nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "cordis.yml")
	os.WriteFile(path, []byte(`- id: agent
  name: agent
  config:
    modelTable:
      my-proxy-*: {contextWindow: 32768, maxOutput: 4096, maxTokensField: max_completion_tokens, inputPrice: 1, outputPrice: 2}
- id: llm
  name: llm/openai
  config: {baseURL: "http://127.0.0.1:9/v1", model: my-proxy-model, apiKeyEnv: ""}
`), 0o644)
	out, _, err := loadAgentConfig(&flags{config: path}, t.TempDir(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.ModelTable.Lookup("my-proxy-model"); got.ContextWindow != 32768 || got.Price == nil || got.Price.Output != 2 {
		t.Errorf("table: %+v", got)
	}
	if f := llm.CapsOf("my-proxy-model").MaxTokensField; f != "max_completion_tokens" {
		t.Errorf("the providers' caps do not see the override: %q", f)
	}
	os.WriteFile(path, []byte("- id: agent\n  name: agent\n  config:\n    modelTable:\n      m: {contextWindow: 1000, maxOutput: 2000}\n- id: llm\n  name: llm/anthropic\n  config: {model: m}\n"), 0o644)
	if _, _, err := loadAgentConfig(&flags{config: path}, t.TempDir(), slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "maxOutput 2000 must be less than contextWindow 1000") {
		t.Errorf("bad override: %v", err)
	}
}
