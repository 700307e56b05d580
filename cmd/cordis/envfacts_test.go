package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
)

// firstSystem runs one prompt in work with env and returns the system
// prompt of the model request it caused.
func firstSystem(t *testing.T, work string, env []string) (string, time.Duration) {
	t.Helper()
	ctx := testCtx(t)
	model := newFakeModel(t, textReply("ok"))
	cmd := exec.Command(binary, "acp", "--state-dir", t.TempDir())
	home := t.TempDir()
	cmd.Env = append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"ANTHROPIC_BASE_URL=" + model.srv.URL, "ANTHROPIC_API_KEY=test-key"}, env...)
	cmd.Dir = work
	e := acptest.StartProcess(t, cmd)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	start := time.Now()
	if stop, err := e.Prompt(ctx, sid, "hi"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	took := time.Since(start)
	e.Close()
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	i := strings.Index(reqs[0], `"messages"`)
	if i < 0 {
		i = len(reqs[0])
	}
	return reqs[0][:i], took
}

// The model is told the date, the platform and, in a git repository, the
// branch, the main branch, what changed and the last commits.
func TestEnvironmentFactsOfAGitProject(t *testing.T) {
	work := gitRepo(t)
	git := func(args ...string) {
		c := exec.Command("git", append([]string{"-C", work}, args...)...)
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644)
	git("add", ".")
	git("commit", "-qm", "Add the first file")
	git("branch", "-M", "main")
	git("checkout", "-qb", "feature/x")
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("b\n"), 0o644)
	os.WriteFile(filepath.Join(work, "new.txt"), []byte("n\n"), 0o644)

	system, _ := firstSystem(t, work, []string{"PATH=" + os.Getenv("PATH")})
	for _, want := range []string{
		"Today's date: " + time.Now().Format("2006-01-02"),
		"Current branch: feature/x", "Main branch (the usual base for pull requests): main",
		" M a.txt", "?? new.txt", "Add the first file", "Shell for Bash commands: ",
	} {
		if !strings.Contains(system, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, system)
		}
	}
}

func TestEnvironmentFactsOutsideGit(t *testing.T) {
	system, _ := firstSystem(t, t.TempDir(), []string{"PATH=" + os.Getenv("PATH")})
	if !strings.Contains(system, "not in a git repository") || strings.Contains(system, "Current branch") {
		t.Errorf("system prompt:\n%s", system)
	}
}

// A git that hangs delays the first answer by the facts' budget at most,
// and the model is told the git facts are incomplete.
func TestEnvironmentFactsWithAHangingGit(t *testing.T) {
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nexec sleep 30\n"), 0o755)
	system, took := firstSystem(t, t.TempDir(), []string{"PATH=" + bin + ":" + os.Getenv("PATH")})
	if !strings.Contains(system, "git did not answer within 2s") {
		t.Errorf("the model is not told git was cut:\n%s", system)
	}
	if took > 15*time.Second { // a deadlock guard, not a timing assertion
		t.Errorf("the first prompt took %s", took)
	}
}

// The prompt is chosen per model family: a Claude model gets the core
// prompt; a model behind an OpenAI-compatible API gets it with guidance on
// function calls, and hears nothing of Claude.
func TestSystemPromptPerModelFamily(t *testing.T) {
	ctx := testCtx(t)
	work := t.TempDir()

	claude, _ := firstSystem(t, work, []string{"PATH=" + os.Getenv("PATH")})
	if !strings.Contains(claude, "Understand before you change") || strings.Contains(claude, "function-calling interface") {
		t.Errorf("the Claude prompt:\n%.600s", claude)
	}

	model := newFakeModel(t, openAITextReply("ok"))
	config := configFile(t, "- id: llm\n  name: llm/openai\n  config: {baseURL: \""+model.srv.URL+"/v1\", model: deepseek-chat, apiKeyEnv: \"\"}\n")
	e, _ := startAgent(t, model, t.TempDir(), work, "--config", config)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	if stop, err := e.Prompt(ctx, sid, "hi"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	e.Close()
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	other := reqs[0]
	if !strings.Contains(other, "Understand before you change") || !strings.Contains(other, "function-calling interface") {
		t.Errorf("the OpenAI-compatible prompt lacks its guidance:\n%.600s", other)
	}
	if strings.Contains(other, "Claude") {
		t.Errorf("a request to deepseek-chat talks of Claude")
	}
}
