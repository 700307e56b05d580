package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHooksTrustCommand(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, ".codex", "hooks.json")
	write := func(cmd string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		data := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hooksCmd := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := runHooks(append(args, "--cwd", dir, "--state-dir", state), &out, &out); err != nil {
			t.Fatalf("cordis hooks %v: %v\n%s", args, err, out.String())
		}
		return out.String()
	}

	if out := hooksCmd("list"); !strings.Contains(out, "No project hook files") {
		t.Errorf("list without files:\n%s", out)
	}
	write("./check.sh")
	if out := hooksCmd("list"); !strings.Contains(out, file+" (codex)") || !strings.Contains(out, "PreToolUse [Bash]: ./check.sh — not trusted") {
		t.Errorf("list:\n%s", out)
	}
	if out := hooksCmd("trust"); !strings.Contains(out, "./check.sh — trusted now (was not trusted)") || !strings.Contains(out, "Trust recorded in "+filepath.Join(state, "trusted-hooks.json")) {
		t.Errorf("trust:\n%s", out)
	}
	if out := hooksCmd("list"); !strings.Contains(out, "./check.sh — trusted") {
		t.Errorf("list after trust:\n%s", out)
	}
	write("./check.sh --all")
	if out := hooksCmd("list"); !strings.Contains(out, "./check.sh --all — changed since it was trusted") {
		t.Errorf("list after an edit:\n%s", out)
	}

	var out bytes.Buffer
	if err := runHooks([]string{"revoke"}, &out, &out); err == nil || !strings.Contains(err.Error(), "unknown subcommand") {
		t.Errorf("unknown subcommand: %v", err)
	}
	if err := runHooks([]string{"trust", "--cwd", filepath.Join(dir, "missing")}, &out, &out); err == nil {
		t.Error("a missing --cwd was accepted")
	}
}
