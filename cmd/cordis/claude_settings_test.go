package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
)

// A project's permissions.additionalDirectories lets Read reach a folder
// outside the project only once the user trusted it (`cordis hooks
// trust`): before, the read is refused by the confinement and the editor
// is told why the directory was not added; after, the file's text reaches
// the model. `cordis config show` lists the directory and its file.
func TestAdditionalDirectoriesNeedTrustThroughTheBinary(t *testing.T) {
	s := newClaudeSetup(t)
	outside := t.TempDir()
	secret := s.write(t, filepath.Join(outside, "notes.txt"), "shared-notes-42\n")
	s.write(t, ".claude/settings.json", `{"permissions": {"additionalDirectories": [`+quoteJSON(outside)+`]}}`)
	read := `{"file_path":` + quoteJSON(secret) + `}`

	run := func() (reached bool, text string) {
		ctx := testCtx(t)
		model := newFakeModel(t, toolReply("toolu_1", "Read", read), textReply("done"))
		e := s.start(t, model)
		askedTitles(e, acp.PermAllowOnce)
		e.Initialize(ctx, acp.ClientCapabilities{})
		sid := e.NewSession(ctx, s.work).SessionID
		prompt(t, ctx, e, sid, "read the notes")
		text = agentText(e, sid)
		e.Close()
		reqs := model.Requests()
		return strings.Contains(reqs[len(reqs)-1], "shared-notes-42"), text
	}
	reached, text := run()
	if reached {
		t.Fatal("Read reached the project's additional directory before it was trusted")
	}
	if !strings.Contains(text, "additionalDirectories apply only once you trust them") {
		t.Errorf("the editor was not told why the directory was not added:\n%s", text)
	}
	if out, err := s.command("hooks", "trust", "--cwd", s.work, "--state-dir", s.state).CombinedOutput(); err != nil {
		t.Fatalf("hooks trust: %v\n%s", err, out)
	}
	if reached, _ := run(); !reached {
		t.Fatal("Read did not reach the trusted additional directory")
	}
	out, err := s.command("config", "show", "--cwd", s.work, "--state-dir", s.state).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "✓ additional directory "+outside+" ("+filepath.Join(s.work, ".claude", "settings.json")+")") {
		t.Errorf("config show (%v):\n%s", err, out)
	}
}

// defaultMode from the settings files: the user's acceptEdits applies
// without a cordis.yml value; a project's bypassPermissions (more
// permissive than the user's) is ignored; the policy's plan beats both.
func TestSettingsDefaultModeThroughTheBinary(t *testing.T) {
	for _, c := range []struct {
		name, user, project, managed, want string
	}{
		{"user", "acceptEdits", "", "", "acceptEdits"},
		{"project may not relax", "default", "bypassPermissions", "", "default"},
		{"project may tighten", "acceptEdits", "plan", "", "plan"},
		{"policy wins", "acceptEdits", "default", "plan", "plan"},
	} {
		s := newClaudeSetup(t)
		mode := func(m string) string { return `{"permissions": {"defaultMode": "` + m + `"}}` }
		if c.user != "" {
			s.write(t, filepath.Join(s.home, ".claude", "settings.json"), mode(c.user))
		}
		if c.project != "" {
			s.write(t, ".claude/settings.json", mode(c.project))
		}
		if c.managed != "" {
			s.write(t, filepath.Join(s.managed, "managed-settings.json"), mode(c.managed))
		}
		ctx := testCtx(t)
		e := s.start(t, newFakeModel(t))
		e.Initialize(ctx, acp.ClientCapabilities{})
		if got := e.NewSession(ctx, s.work).Modes.CurrentModeID; got != c.want {
			t.Errorf("%s: the session started in %s, want %s", c.name, got, c.want)
		}
		e.Close()
	}
}

// A project command with `context: fork` and `agent: checker` runs in a
// subagent of that custom type, as Claude Code runs it for an SDK host:
// the subagent's request carries the agent's system prompt and the
// expanded command as its task (and not the conversation); the main model
// is given the subagent's report, not the command's text; the editor sees
// a subagent card.
func TestForkedCommandRunsInASubagentThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	s.write(t, ".claude/agents/checker.md", "---\nname: checker\ndescription: Checks code\n---\nYou are the checker agent.\n")
	s.write(t, ".claude/commands/review.md", "---\ndescription: Review a file\ncontext: fork\nagent: checker\n---\nReview the file $ARGUMENTS and list its problems.\n")
	model := newFakeModel(t, textReply("earlier answer"), textReply("checker report: two problems"), textReply("The review found two problems."))
	e := s.start(t, model)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	prompt(t, ctx, e, sid, "remember the word pelican")
	prompt(t, ctx, e, sid, "/review main.go")
	e.Close()

	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3 (main, subagent, main)", len(reqs))
	}
	child, main := reqs[1], reqs[2]
	for _, want := range []string{"You are the checker agent.", "Review the file main.go and list its problems."} {
		if !strings.Contains(child, want) {
			t.Errorf("the subagent's request lacks %q:\n%s", want, child)
		}
	}
	if strings.Contains(child, "pelican") {
		t.Error("the forked subagent saw the conversation")
	}
	if !strings.Contains(main, "checker report: two problems") || strings.Contains(main, "list its problems") {
		t.Errorf("the main model was not given the report in place of the command:\n%s", main)
	}
	var card bool
	for _, u := range e.Updates(sid) {
		if c, ok := u.(*acp.ToolCall); ok && c.Title == "/review (subagent: checker)" {
			card = true
		}
	}
	if !card {
		t.Error("the editor was not shown the subagent")
	}
}
