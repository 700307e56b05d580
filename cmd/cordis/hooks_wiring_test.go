package main

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/builtin"
)

const llmEntry = "- id: llm\n  name: llm/anthropic\n  config: {model: claude-sonnet-4-5}\n"

func assembleYAML(t *testing.T, yml string) (*hooks.Pipeline, error) {
	t.Helper()
	cfg, err := config.Parse([]byte(yml), "test.yml", newRegistry(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	out, err := assemble(cfg, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)), nil, credentialFile{})
	if err != nil {
		return nil, err
	}
	p, ok := out.Hooks.(*hooks.Pipeline)
	if !ok {
		t.Fatalf("loop.Config.Hooks is %T, want the pipeline", out.Hooks)
	}
	return p, nil
}

func hookNames(p *hooks.Pipeline) map[string]bool {
	names := map[string]bool{}
	for _, h := range p.List() {
		if h.Enabled && slices.Contains(builtin.Names(), h.Name) { // bridges aside
			names[h.Name] = true
		}
	}
	return names
}

func TestBuiltinHooksWiring(t *testing.T) {
	// The embedded default and a config without the entry run the same
	// built-ins.
	out, err := assemble(builtinDefault(), t.TempDir(), slog.New(slog.DiscardHandler), nil, credentialFile{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{builtin.ContextInjector: true, builtin.PermissionRules: true, builtin.InputSanitize: true, builtin.Metrics: true, builtin.ContextMonitor: true}
	if got := hookNames(out.Hooks.(*hooks.Pipeline)); !mapsEqual(got, want) {
		t.Fatalf("embedded default runs %v, want %v", got, want)
	}
	if out.Status == nil {
		t.Error("metrics are not wired into /status")
	}
	p, err := assembleYAML(t, llmEntry)
	if err != nil {
		t.Fatal(err)
	}
	if got := hookNames(p); !mapsEqual(got, want) {
		t.Fatalf("without an entry: %v, want %v", got, want)
	}

	// disabled: true turns them all off.
	p, err = assembleYAML(t, llmEntry+"- id: hooks\n  name: hooks/builtin\n  disabled: true\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := hookNames(p); len(got) != 0 {
		t.Fatalf("disabled entry still runs %v", got)
	}

	// A configured entry.
	p, err = assembleYAML(t, llmEntry+"- id: hooks\n  name: hooks/builtin\n  config: {disabledHooks: [metrics], permissionRules: {deny: [\"Bash(rm -rf:*)\"]}, budgetCheck: {maxTokens: 1000}}\n")
	if err != nil {
		t.Fatal(err)
	}
	got := hookNames(p)
	if got[builtin.Metrics] || !got[builtin.BudgetCheck] || !got[builtin.PermissionRules] {
		t.Fatalf("configured entry runs %v", got)
	}
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, ToolName: "Bash", ToolInput: []byte(`{"command":"rm -rf /"}`)})
	if d.Permission != hooks.Deny {
		t.Fatalf("the deny rule did not apply: %+v", d)
	}

	// Mistakes name the entry.
	_, err = assembleYAML(t, llmEntry+"- id: hooks\n  name: hooks/builtin\n  config: {permissionRules: {allow: [\"TodoWrite(x)\"]}}\n")
	if err == nil || !strings.Contains(err.Error(), `entry "hooks"`) || !strings.Contains(err.Error(), "TodoWrite takes no specifier") {
		t.Fatalf("err = %v", err)
	}
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
