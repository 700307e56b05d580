package loop_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// askedTitles records the permission requests the editor gets, rejecting
// each.
type askedTitles struct {
	mu     sync.Mutex
	titles []string
}

func (a *askedTitles) answer(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	a.mu.Lock()
	a.titles = append(a.titles, p.ToolCall.Title)
	a.mu.Unlock()
	return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermRejectOnce}}, nil
}

func (a *askedTitles) get() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.titles)
}

func toolDescription(req map[string]any, name string) string {
	for _, tl := range req["tools"].([]any) {
		if m := tl.(map[string]any); m["name"] == name {
			return m["description"].(string)
		}
	}
	return ""
}

func toolNames(req map[string]any) []string {
	var names []string
	for _, tl := range req["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}

// TestSkillsAreListedAndLoadedThroughTheSkillTool lays out skills as Claude
// Code keeps them (~/.claude/skills/<name>/SKILL.md, .claude/skills/...):
// the Skill tool's description lists the model-invocable ones, a call
// loads the body with its arguments and folder, the folder is readable,
// and its allowed-tools pre-approve calls for that turn only.
func TestSkillsAreListedAndLoadedThroughTheSkillTool(t *testing.T) {
	home := t.TempDir()
	skillDir := filepath.Join(home, ".claude", "skills", "deploy")
	writeFile(t, filepath.Join(skillDir, "SKILL.md"), "---\nname: Deploy helper\ndescription: Deploys the app to staging.\nallowed-tools: Bash(mkdir:*)\n---\nDeploy $ARGUMENTS using ${CLAUDE_SKILL_DIR}/run.sh.\n")
	writeFile(t, filepath.Join(skillDir, "run.sh"), "echo deploying\n")
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { withHome(c, home) }},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_skill", "Skill", map[string]any{"skill": "deploy", "args": "staging"})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_read", "Read", map[string]any{"file_path": filepath.Join(skillDir, "run.sh")})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_mk", "Bash", map[string]any{"command": "mkdir made"})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_touch", "Bash", map[string]any{"command": "touch other"})),
		looptest.ReplyText("deployed"),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_mk2", "Bash", map[string]any{"command": "mkdir again"})),
		looptest.ReplyText("ok"))
	writeFile(t, filepath.Join(h.Cwd, ".claude", "skills", "greet", "SKILL.md"), "---\ndescription: Greets the team.\n---\nSay hello.\n")
	writeFile(t, filepath.Join(h.Cwd, ".claude", "skills", "release", "SKILL.md"), "---\ndescription: Cuts a release.\ndisable-model-invocation: true\n---\nRelease.\n")
	var asked askedTitles
	h.Editor.OnPermission = asked.answer
	sid := h.NewSession()
	h.Prompt(sid, "deploy to staging")
	h.Prompt(sid, "once more")

	reqs := h.Model.Requests()
	desc := toolDescription(reqs[0], "Skill")
	for _, want := range []string{"\n- deploy: Deploys the app to staging.", "\n- greet: Greets the team."} {
		if !strings.Contains(desc, want) {
			t.Errorf("the Skill tool's description lacks %q:\n%s", want, desc)
		}
	}
	if strings.Contains(desc, "release") {
		t.Errorf("a disable-model-invocation skill is listed:\n%s", desc)
	}
	text, isErr := looptest.ToolResult(t, reqs[1], "toolu_skill")
	want := "Launching skill: deploy\n\nBase directory for this skill: " + skillDir + "\n\nDeploy staging using " + skillDir + "/run.sh."
	if isErr || !strings.HasPrefix(text, want) {
		t.Errorf("Skill result (error %v):\n%s\nwant it to start with:\n%s", isErr, text, want)
	}
	if text, isErr := looptest.ToolResult(t, reqs[2], "toolu_read"); isErr || !strings.Contains(text, "echo deploying") {
		t.Errorf("the skill's folder is not readable: %s", text)
	}
	if _, err := os.Stat(filepath.Join(h.Cwd, "made")); err != nil {
		t.Errorf("the pre-approved mkdir did not run: %v", err)
	}
	if got := asked.get(); !slices.Equal(got, []string{"touch other", "mkdir again"}) {
		t.Errorf("asked for %q; want touch (not pre-approved) and the next turn's mkdir (the grant ended)", got)
	}
}

// TestCommandAllowedToolsPreApproveOnceTrusted: a command's allowed-tools
// pre-approve the listed calls and leave every tool offered; a project
// command's rules count only once trusted (cordis hooks trust).
func TestCommandAllowedToolsPreApproveOnceTrusted(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { withHome(c, t.TempDir()) }},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": "mkdir one"})),
		looptest.ReplyText("asked"),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_2", "Bash", map[string]any{"command": "mkdir two"})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_3", "Bash", map[string]any{"command": "touch three"})),
		looptest.ReplyText("made"))
	writeFile(t, filepath.Join(h.Cwd, ".claude", "commands", "mk.md"), "---\ndescription: Make a directory\nallowed-tools: Bash(mkdir:*)\n---\nMake the directory $ARGUMENTS.\n")
	var asked askedTitles
	h.Editor.OnPermission = asked.answer
	sid := h.NewSession()
	h.Prompt(sid, "/mk one")
	if got := asked.get(); !slices.Equal(got, []string{"mkdir one"}) {
		t.Fatalf("an untrusted project command's allowed-tools: asked %q, want mkdir asked", got)
	}
	if !strings.Contains(looptest.AgentText(h.Editor.Updates(sid)), "cordis hooks trust") {
		t.Error("the user was not told that the command's allowed-tools need trust")
	}
	store := trust.Open(h.StateDir)
	for _, d := range projectFiles.Discover(h.Cwd) {
		if err := store.Trust(d); err != nil {
			t.Fatal(err)
		}
	}
	h.Prompt(sid, "/mk two")
	if got := asked.get(); !slices.Equal(got, []string{"mkdir one", "touch three"}) {
		t.Errorf("asked %q; want only touch once the rule is trusted", got)
	}
	if _, err := os.Stat(filepath.Join(h.Cwd, "two")); err != nil {
		t.Errorf("the pre-approved mkdir did not run: %v", err)
	}
	if names := toolNames(h.Model.Requests()[2]); !slices.Contains(names, "Write") || !slices.Contains(names, "Edit") {
		t.Errorf("allowed-tools removed tools: %v", names)
	}
}

// TestCustomSubagentGetsItsPromptToolsAndModel lays out .claude/agents as
// Claude Code does: the Agent tool lists the type, and a call of that
// subagent_type runs a child with the file's body as its system prompt,
// only its tools and its model; its seams carry the type.
func TestCustomSubagentGetsItsPromptToolsAndModel(t *testing.T) {
	var mu sync.Mutex
	types := map[hooks.Event]string{}
	seams := hookFunc(func(_ context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.SubagentStart || in.Event == hooks.SubagentStop {
			mu.Lock()
			types[in.Event] = in.AgentType
			mu.Unlock()
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Config: func(c *loop.Config) {
		withHome(c, t.TempDir())
		c.Models = []string{"claude-test", "claude-haiku-4-5"}
	}},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_agent", "Agent", map[string]any{"description": "review", "prompt": "Review main.go", "subagent_type": "code-reviewer"})),
		looptest.ReplyText("looks fine"),
		looptest.ReplyText("The reviewer found nothing."))
	writeFile(t, filepath.Join(h.Cwd, ".claude", "agents", "reviewer.md"), "---\nname: code-reviewer\ndescription: Reviews code for bugs.\ntools: Read, Grep\nmodel: haiku\n---\nYou are a strict code reviewer.\n")
	sid := h.NewSession()
	h.Prompt(sid, "review my code")

	reqs := h.Model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (parent, child, parent)", len(reqs))
	}
	if desc := toolDescription(reqs[0], "Agent"); !strings.Contains(desc, "- code-reviewer: Reviews code for bugs. (Tools: Read, Grep)") {
		t.Errorf("the Agent tool does not list the subagent:\n%s", desc)
	}
	child := reqs[1]
	if got := toolNames(child); !slices.Equal(got, []string{"Read", "Grep"}) {
		t.Errorf("child tools = %v, want [Read Grep]", got)
	}
	if child["model"] != "claude-haiku-4-5" {
		t.Errorf("child model = %v, want the haiku model", child["model"])
	}
	system, _ := json.Marshal(child["system"])
	if !strings.Contains(string(system), "You are a strict code reviewer.") || strings.Contains(string(system), "You are a subagent of cordis") {
		t.Errorf("child system prompt is not the subagent's: %s", system)
	}
	mu.Lock()
	defer mu.Unlock()
	if types[hooks.SubagentStart] != "code-reviewer" || types[hooks.SubagentStop] != "code-reviewer" {
		t.Errorf("agent types at SubagentStart/SubagentStop = %q", types)
	}
}

// TestSessionStartShellEnvReachesEveryBashCommand: what SessionStart hooks
// exported (Claude's CLAUDE_ENV_FILE, handed on as ShellEnv) is in the
// environment of every later Bash command, foreground and background.
func TestSessionStartShellEnvReachesEveryBashCommand(t *testing.T) {
	seams := hookFunc(func(_ context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.SessionStart {
			return hooks.Decision{ShellEnv: []string{"export GREETING=hello\n", "export TARGET=world"}}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Mode: loop.ModeBypass, Config: func(c *loop.Config) { withHome(c, t.TempDir()) }},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": `echo "$GREETING $TARGET"`})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_2", "Bash", map[string]any{"command": `bash -c 'echo "nested=$GREETING bash_env=${BASH_ENV:-unset}"'`})),
		looptest.ReplyText("done"))
	sid := h.NewSession()
	h.Prompt(sid, "greet")
	reqs := h.Model.Requests()
	if text, _ := looptest.ToolResult(t, reqs[1], "toolu_1"); !strings.Contains(text, "hello world") {
		t.Errorf("first command did not see the exports: %q", text)
	}
	// Exported variables reach child processes; the file is sourced once.
	if text, _ := looptest.ToolResult(t, reqs[2], "toolu_2"); !strings.Contains(text, "nested=hello bash_env=unset") {
		t.Errorf("second command: %q", text)
	}
}
