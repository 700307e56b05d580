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

	if out := hooksCmd("list"); !strings.Contains(out, "review them, then run `cordis hooks trust --cwd "+dir+"`") {
		t.Errorf("list does not say how to trust:\n%s", out)
	}

	var out bytes.Buffer
	if err := runHooks([]string{"revoke"}, &out, &out); err == nil || !strings.Contains(err.Error(), "unknown subcommand") {
		t.Errorf("unknown subcommand: %v", err)
	}
	if err := runHooks([]string{"trust", "--cwd", filepath.Join(dir, "missing")}, &out, &out); err == nil {
		t.Error("a missing --cwd was accepted")
	}
}

// TestHooksTrustCommandClaude: the Claude bridge's project settings files
// are listed and trusted with the Codex file, each under its dialect; the
// user's own file is not listed.
func TestHooksTrustCommandClaude(t *testing.T) {
	home, dir, state := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	claudeHook := func(cmd string) string {
		return `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	hooksCmd := func(cwd string, args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := runHooks(append(args, "--cwd", cwd, "--state-dir", state), &out, &out); err != nil {
			t.Fatalf("cordis hooks %v: %v\n%s", args, err, out.String())
		}
		return out.String()
	}
	settings := filepath.Join(dir, ".claude", "settings.json")
	local := filepath.Join(dir, ".claude", "settings.local.json")
	codexFile := filepath.Join(dir, ".codex", "hooks.json")
	write(filepath.Join(home, ".claude", "settings.json"), claudeHook("./user.sh"))
	write(settings, claudeHook("./lint.sh"))
	write(local, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./local.sh"}, {"type": "prompt", "prompt": "p"}]}]}}`)
	write(codexFile, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./codex.sh"}]}]}}`)

	out := hooksCmd(dir, "list")
	for _, want := range []string{
		settings + " (claude)\n  PreToolUse [Bash]: ./lint.sh — not trusted",
		local + " (claude)\n  warning: ",
		"Stop: ./local.sh — not trusted",
		codexFile + " (codex)\n  Stop: ./codex.sh — not trusted",
		"(Claude and Codex alike)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "user.sh") {
		t.Errorf("list shows the user's own file:\n%s", out)
	}
	if i, j := strings.Index(out, settings), strings.Index(out, codexFile); i > j {
		t.Errorf("Claude files are not listed first:\n%s", out)
	}
	out = hooksCmd(dir, "trust")
	if strings.Count(out, "trusted now (was not trusted)") != 3 {
		t.Errorf("trust:\n%s", out)
	}
	if out := hooksCmd(dir, "list"); strings.Contains(out, "not trusted") || strings.Contains(out, "review them") {
		t.Errorf("list after trust:\n%s", out)
	}
	write(settings, claudeHook("./lint.sh --fix"))
	if out := hooksCmd(dir, "list"); !strings.Contains(out, "PreToolUse [Bash]: ./lint.sh --fix — changed since it was trusted") || !strings.Contains(out, "Stop: ./local.sh — trusted") {
		t.Errorf("list after an edit:\n%s", out)
	}

	// In the home directory the .claude files are the user's own.
	if out := hooksCmd(home, "list"); !strings.Contains(out, "No project hook files") || !strings.Contains(out, "user-level files and need no trust") {
		t.Errorf("list in the home directory:\n%s", out)
	}
}
