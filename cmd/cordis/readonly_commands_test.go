package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
)

// Through the binary in default mode, as Claude Code behaves: the
// read-only `git status` (and `git log | head`) run without a permission
// request, while `git commit -m x` and `git status > status.txt` (a
// redirection into a file) are asked about.
func TestReadOnlyCommandsRunUnaskedThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	state, work := t.TempDir(), gitRepo(t)
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644)

	model := newFakeModel(t,
		toolReply("toolu_1", "Bash", `{"command":"git status"}`), textReply("ok"),
		toolReply("toolu_2", "Bash", `{"command":"git log --oneline 2>/dev/null | head -5; ls -la"}`), textReply("ok"),
		toolReply("toolu_3", "Bash", `{"command":"git commit -m x"}`), textReply("ok"),
		toolReply("toolu_4", "Bash", `{"command":"git status > status.txt"}`), textReply("ok"))
	e, _ := startAgent(t, model, state, work)
	asked := recordPermissions(e, acp.PermRejectOnce)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	for _, text := range []string{"status", "log", "commit", "redirect"} {
		if stop, err := e.Prompt(ctx, sid, text); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %s: %q, %v", text, stop, err)
		}
	}
	e.Close()

	if got := strings.Join(asked.titles(), " | "); got != "git commit -m x | git status > status.txt" {
		t.Errorf("asked about %q, want only the commit and the redirection", got)
	}
	model.mu.Lock()
	requests := strings.Join(model.requests, "\n")
	model.mu.Unlock()
	if !strings.Contains(requests, "a.txt") || !strings.Contains(requests, "No commits yet") {
		t.Errorf("git status did not run or its output did not reach the model")
	}
	if _, err := os.Stat(filepath.Join(work, "status.txt")); err == nil {
		t.Error("the rejected redirection ran")
	}
}

// Plan mode through the binary: Claude Code runs its read-only commands
// in every mode, so `git status` and `ls` run there without a question,
// while `touch made.txt` is refused as plan mode refuses every write (the
// user is not asked either).
func TestReadOnlyCommandsRunInPlanModeThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	state, work := t.TempDir(), gitRepo(t)
	os.WriteFile(filepath.Join(work, "plan-notes.txt"), []byte("a\n"), 0o644)

	model := newFakeModel(t,
		toolReply("toolu_1", "Bash", `{"command":"git status && ls"}`), textReply("ok"),
		toolReply("toolu_2", "Bash", `{"command":"touch made.txt"}`), textReply("ok"))
	e, _ := startAgent(t, model, state, work)
	asked := recordPermissions(e, acp.PermAllowOnce)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	setMode(t, e, sid, "plan")
	for _, text := range []string{"look", "write"} {
		if stop, err := e.Prompt(ctx, sid, text); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %s: %q, %v", text, stop, err)
		}
	}
	e.Close()

	if got := asked.titles(); len(got) != 0 {
		t.Errorf("asked about %q in plan mode, want nothing asked", got)
	}
	model.mu.Lock()
	requests := strings.Join(model.requests, "\n")
	model.mu.Unlock()
	if !strings.Contains(requests, "No commits yet") || !strings.Contains(requests, "plan-notes.txt") {
		t.Errorf("the read-only command did not run in plan mode or its output did not reach the model")
	}
	if !strings.Contains(requests, "Plan mode is read-only") {
		t.Errorf("touch was not refused as plan mode refuses writes")
	}
	if _, err := os.Stat(filepath.Join(work, "made.txt")); err == nil {
		t.Error("touch ran in plan mode")
	}
}

// gitRepo is a fresh git repository, or skips the test without git.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	work := t.TempDir()
	git := exec.Command("git", "init", "-q", work)
	git.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return work
}

// permissionLog records the titles of the permission requests an editor
// answered.
type permissionLog struct {
	mu    sync.Mutex
	asked []string
}

func (l *permissionLog) titles() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.asked)
}

// recordPermissions answers every permission request with option and
// records its title.
func recordPermissions(e *acptest.Editor, option string) *permissionLog {
	l := &permissionLog{}
	e.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.asked = append(l.asked, p.ToolCall.Title)
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: option}}, nil
	}
	return l
}

// runBashCalls runs each command as a Bash call of the model in default
// mode, the editor rejecting every permission request, and returns the
// commands it was asked about.
func runBashCalls(t *testing.T, work string, commands ...string) []string {
	t.Helper()
	ctx := testCtx(t)
	var replies []string
	for i, c := range commands {
		input, _ := json.Marshal(map[string]string{"command": c})
		replies = append(replies, toolReply(fmt.Sprintf("toolu_%d", i), "Bash", string(input)), textReply("ok"))
	}
	model := newFakeModel(t, replies...)
	e, _ := startAgent(t, model, t.TempDir(), work)
	asked := recordPermissions(e, acp.PermRejectOnce)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	for _, c := range commands {
		if stop, err := e.Prompt(ctx, sid, "run "+c); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %s: %q, %v", c, stop, err)
		}
	}
	e.Close()
	return asked.titles()
}

// Issue 27, finding 3: bash reads [!a]delete as "not a, then delete",
// so with a file named -delete in the project find [!a]delete is find
// -delete. It must be asked about (and, rejected, delete nothing), while
// a bracket glob over ordinary files still runs unasked.
func TestReadOnlyGlobsAsBashThroughTheBinary(t *testing.T) {
	work := gitRepo(t)
	for _, f := range []string{"-delete", "keep/notes.txt"} {
		os.MkdirAll(filepath.Dir(filepath.Join(work, f)), 0o755)
		os.WriteFile(filepath.Join(work, f), []byte("x\n"), 0o644)
	}
	got := runBashCalls(t, work, "find [!a]delete", "find [[:punct:]]delete", "cat keep/[!x]otes.txt")
	if want := []string{"find [!a]delete", "find [[:punct:]]delete"}; !slices.Equal(got, want) {
		t.Errorf("asked about %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(work, "keep", "notes.txt")); err != nil {
		t.Errorf("find -delete ran: %v", err)
	}
}

// Issue 27, finding 5: with a committed symlink docs/l leading out,
// docs/l/.. is the parent of its target to the kernel. Reading through
// it is asked about, and, rejected, the outside file's text never
// reaches the model.
func TestReadOnlyDotDotAfterSymlinkThroughTheBinary(t *testing.T) {
	work, away := gitRepo(t), t.TempDir()
	os.MkdirAll(filepath.Join(away, "inner"), 0o755)
	os.WriteFile(filepath.Join(away, "secret.txt"), []byte("TOP-SECRET-5\n"), 0o644)
	os.MkdirAll(filepath.Join(work, "docs"), 0o755)
	if err := os.Symlink(filepath.Join(away, "inner"), filepath.Join(work, "docs", "l")); err != nil {
		t.Fatal(err)
	}
	cmds := []string{"cat docs/l/../secret.txt", "grep -r TOP docs/l/..", "cd -P docs/l/.. && cat secret.txt"}
	if got := runBashCalls(t, work, cmds...); !slices.Equal(got, cmds) {
		t.Errorf("asked about %q, want %q", got, cmds)
	}
}

// Issue 27, finding 6: options as the programs read them. grep takes
// --rege= as --regexp= (so the outside file is an operand, not the
// pattern), strings reads more arguments from @FILE, file -mFILE reads
// a magic file: each is asked about, while a whole, listed option still
// runs unasked.
func TestReadOnlyOptionsThroughTheBinary(t *testing.T) {
	work, away := gitRepo(t), t.TempDir()
	secret := filepath.Join(away, "secret.txt")
	os.WriteFile(secret, []byte("TOP-SECRET-6\n"), 0o644)
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644)
	cmds := []string{"grep --rege=TOP " + secret, "strings @" + secret, "file -m" + secret + " a.txt", "grep --regexp=a a.txt"}
	if got := runBashCalls(t, work, cmds...); !slices.Equal(got, cmds[:3]) {
		t.Errorf("asked about %q, want %q", got, cmds[:3])
	}
}

// Issue 27, finding 7: git diff with a file outside the repository is an
// implicit --no-index diff that prints it, git blame --contents prints
// the file it is given, and a %G format runs gpg: each is asked about,
// while git diff of a file inside still runs unasked.
func TestReadOnlyGitOperandsThroughTheBinary(t *testing.T) {
	work, away := gitRepo(t), t.TempDir()
	secret := filepath.Join(away, "secret.txt")
	os.WriteFile(secret, []byte("TOP-SECRET-7\n"), 0o644)
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644)
	cmds := []string{"git diff " + secret + " a.txt", "git blame --contents " + secret + " a.txt", "git log --format='%G?'", "git diff -- a.txt"}
	if got := runBashCalls(t, work, cmds...); !slices.Equal(got, cmds[:3]) {
		t.Errorf("asked about %q, want %q", got, cmds[:3])
	}
}
