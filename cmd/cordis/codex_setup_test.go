package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/mcp/mcptest"
)

// codexStdioServer is a Codex [mcp_servers.<name>] table that runs this
// test binary as mcptest's stdio server, with extra lines added.
func codexStdioServer(name string, extra ...string) string {
	var env []string
	for _, kv := range mcptest.Env("") {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, fmt.Sprintf("%q = %q", k, v))
	}
	return fmt.Sprintf("[mcp_servers.%s]\ncommand = %q\nenv = { %s }\n%s\n", name, os.Args[0], strings.Join(env, ", "), strings.Join(extra, "\n"))
}

// Codex's MCP servers: the user's ~/.codex/config.toml servers start
// with Codex's options honoured (enabled = false, enabled_tools and
// disabled_tools, tool_timeout_sec, a streamable HTTP server's
// bearer_token_env_var, which never reads a provider key), a project's
// .codex/config.toml server waits until `cordis trust` approved it, and
// Codex's own trust of the project (trust_level = "trusted") approves it
// too.
func TestCodexMCPServersThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	web := mcptest.NewHTTPServer()
	defer web.Close()
	userConfig := `model = "gpt-5-codex"` + "\n\n" +
		codexStdioServer("mine", `enabled_tools = ["echo", "env", "hang"]`, `disabled_tools = ["env"]`, `tool_timeout_sec = 0.5`) +
		codexStdioServer("off", `enabled = false`) +
		fmt.Sprintf("[mcp_servers.web]\nurl = %q\nbearer_token_env_var = \"HOME\"\nhttp_headers = { \"X-Team\" = \"core\" }\n", web.URL) +
		fmt.Sprintf("[mcp_servers.leaky]\nurl = %q\nbearer_token_env_var = \"ANTHROPIC_API_KEY\"\n", web.URL)
	s.write(t, filepath.Join(s.home, ".codex", "config.toml"), userConfig)
	s.write(t, ".codex/config.toml", codexStdioServer("proj"))

	model := newFakeModel(t, toolReply("toolu_1", "mcp__mine__hang", `{}`), textReply("hung"), textReply("approved"), textReply("trusted in codex"))
	e := s.start(t, model)
	allowAll(e)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	prompt(t, ctx, e, sid, "hi")
	reqs := model.Requests()
	offered := func(req, tool string) bool { return strings.Contains(req, `"`+tool+`"`) }
	for tool, want := range map[string]bool{"mcp__mine__echo": true, "mcp__mine__hang": true, "mcp__mine__env": false, "mcp__mine__write_note": false,
		"mcp__off__echo": false, "mcp__web__greet": true, "mcp__leaky__greet": false, "mcp__proj__echo": false} {
		if offered(reqs[0], tool) != want {
			t.Errorf("%s offered: %v, want %v", tool, !want, want)
		}
	}
	if !strings.Contains(reqs[1], `did not answer hang within 500ms`) {
		t.Errorf("tool_timeout_sec not honoured: %.3000s", reqs[1])
	}
	if !slices.Contains(web.Authorizations(), "Bearer "+s.home) {
		t.Errorf("bearer_token_env_var not sent: %q", web.Authorizations())
	}
	thread := agentText(e, sid)
	for _, want := range []string{
		`MCP server "leaky" in ` + filepath.Join(s.home, ".codex", "config.toml") + ` is not started: its bearer_token_env_var ANTHROPIC_API_KEY is not set`,
		"The project's .codex/config.toml has MCP servers waiting for your approval: proj",
		"cordis trust --cwd " + s.work,
	} {
		if !strings.Contains(thread, want) {
			t.Errorf("the thread does not say %q:\n%s", want, thread)
		}
	}
	if strings.Contains(strings.Join(web.Authorizations(), ","), "test-key") {
		t.Error("the provider key reached the HTTP server")
	}

	out, err := s.command("trust", "--list", "--cwd", s.work, "--state-dir", s.state).CombinedOutput()
	if err != nil || !strings.Contains(string(out), filepath.Join(s.work, ".codex", "config.toml")+"#mcp_servers (codex-mcp)") || !strings.Contains(string(out), "not trusted") {
		t.Fatalf("cordis trust --list: %v\n%s", err, out)
	}
	if out, err := s.command("trust", "--cwd", s.work, "--state-dir", s.state).CombinedOutput(); err != nil {
		t.Fatalf("cordis trust: %v\n%s", err, out)
	}
	sid = e.NewSession(ctx, s.work).SessionID
	prompt(t, ctx, e, sid, "again")
	if reqs := model.Requests(); !offered(reqs[2], "mcp__proj__echo") {
		t.Error("the approved project server's tools are not offered")
	}

	// An edited definition waits again, unless the user trusts the
	// project in Codex's own configuration.
	s.write(t, ".codex/config.toml", codexStdioServer("proj", `startup_timeout_sec = 30`))
	s.write(t, filepath.Join(s.home, ".codex", "config.toml"), userConfig+fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", s.work))
	sid = e.NewSession(ctx, s.work).SessionID
	prompt(t, ctx, e, sid, "once more")
	if reqs := model.Requests(); !offered(reqs[3], "mcp__proj__echo") {
		t.Error("a project Codex trusts does not have its servers started")
	}
	e.Close()
}

// Codex's saved prompts run as /prompts:<name>: advertised with their
// frontmatter's description, $1..$9 filled from the arguments, named
// placeholders from KEY=value arguments (a missing one is reported and
// no turn runs), and nothing else expanded.
func TestCodexSavedPromptsThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	prompts := filepath.Join(s.home, ".codex", "prompts")
	s.write(t, filepath.Join(prompts, "review-pr.md"), "---\ndescription: \"Review a PR with context\"\nargument-hint: \"[pr-number] [priority]\"\n---\nPlease review pull request #$1 with priority $2. Keep !`echo pwned` and $$1 as written.\n")
	s.write(t, filepath.Join(prompts, "ticket.md"), "Draft a ticket for $USER about $TOPIC.\n")

	model := newFakeModel(t, textReply("reviewed"), textReply("drafted"))
	e := s.start(t, model)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	prompt(t, ctx, e, sid, "/prompts:review-pr 42 high")
	if !advertised(e, sid, "prompts:review-pr") || !advertised(e, sid, "prompts:ticket") {
		t.Error("the saved prompts are not advertised")
	}
	reqs := model.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0], "Please review pull request #42 with priority high. Keep !`echo pwned` and $$1 as written.") {
		t.Fatalf("the saved prompt was not sent as written: %q", reqs)
	}
	if strings.Contains(reqs[0], "description:") {
		t.Error("the frontmatter reached the model")
	}
	if text := slashText(t, e, sid, "/prompts:ticket USER=me"); !strings.Contains(text, "missing required arguments: TOPIC") {
		t.Errorf("a missing named argument: %q", text)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("a prompt with a missing argument ran a turn (%d requests)", n)
	}
	prompt(t, ctx, e, sid, `/prompts:ticket USER=me TOPIC="flaky tests"`)
	if reqs := model.Requests(); !strings.Contains(reqs[len(reqs)-1], "Draft a ticket for me about flaky tests.") {
		t.Errorf("named placeholders not filled: %.2000s", reqs[len(reqs)-1])
	}
	e.Close()
}

// Codex's skill roots above the cwd up to the repository's root are
// read (confined to the repository: a link out of it is not followed),
// and the model can read such a skill's files; the older
// ~/.codex/skills and .codex/skills roots are read after the current
// ones, which win a clash.
func TestCodexRepoAndOlderSkillRootsThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	s.write(t, ".git/HEAD", "ref: refs/heads/main\n")
	cwd := filepath.Join(s.work, "services", "api")
	s.write(t, filepath.Join(cwd, "main.go"), "package main\n")
	s.write(t, ".agents/skills/release/SKILL.md", "---\nname: release\ndescription: Cuts a release of the monorepo\n---\nFollow checklist.md in this folder.\n")
	s.write(t, ".agents/skills/release/checklist.md", "1. bump the version\n")
	outside := t.TempDir()
	s.write(t, filepath.Join(outside, "stolen", "SKILL.md"), "---\nname: stolen\ndescription: a skill outside the repository\n---\nx\n")
	if err := os.Symlink(filepath.Join(outside, "stolen"), filepath.Join(s.work, ".agents", "skills", "stolen")); err != nil {
		t.Fatal(err)
	}
	s.write(t, filepath.Join(s.home, ".codex", "skills", "legacy", "SKILL.md"), "---\nname: legacy\ndescription: An old-style user skill\n---\nold\n")
	s.write(t, filepath.Join(cwd, ".codex", "skills", "legacy-proj", "SKILL.md"), "---\nname: legacy-proj\ndescription: An old-style project skill\n---\nold\n")
	s.write(t, filepath.Join(s.home, ".codex", "skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: the old tidy\n---\nold\n")
	s.write(t, filepath.Join(s.home, ".agents", "skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: the current tidy\n---\nnew\n")

	checklist := filepath.Join(s.work, ".agents", "skills", "release", "checklist.md")
	model := newFakeModel(t, toolReply("toolu_1", "Skill", `{"skill":"release"}`), toolReply("toolu_2", "Read", `{"file_path":"`+jsonEscaped(checklist)+`"}`), textReply("released"))
	e := s.start(t, model)
	allowAll(e)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, cwd).SessionID
	prompt(t, ctx, e, sid, "cut a release")
	e.Close()
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	for _, want := range []string{"Cuts a release of the monorepo", "An old-style user skill", "An old-style project skill", "the current tidy"} {
		if !strings.Contains(reqs[0], want) {
			t.Errorf("the first request does not list %q", want)
		}
	}
	for _, unwanted := range []string{"the old tidy", "a skill outside the repository"} {
		if strings.Contains(reqs[0], unwanted) {
			t.Errorf("the first request lists %q", unwanted)
		}
	}
	if !strings.Contains(reqs[1], "Follow checklist.md in this folder.") {
		t.Errorf("the repository's skill did not load: %.2000s", reqs[1])
	}
	if !strings.Contains(reqs[2], "bump the version") {
		t.Errorf("the model could not read the skill's file: %.2000s", reqs[2])
	}
}
