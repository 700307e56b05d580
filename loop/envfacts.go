package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/internal/sandbox"
)

// envFacts are what the model is told of the machine and the project at
// the start of a session: gathered once, within envFactsBudget, so a huge
// repository or a git that hangs cannot delay the session (the model is
// told when something was cut).
type envFacts struct {
	date, platform, osVersion, shell string
	// git is "" outside a repository; otherwise the branch, the main
	// branch, the status and the last commits, as the model reads them.
	git     string
	inRepo  bool
	gitNote string // why git facts are missing or partial ("" when whole)
}

const (
	// envFactsBudget bounds all git commands together.
	envFactsBudget = 2 * time.Second
	// maxStatusLines and maxCommits cap what the model is told.
	maxStatusLines = 30
	maxCommits     = 5
)

// facts returns the session's facts, gathering them on first use.
func (s *Session) facts() *envFacts {
	s.factsOnce.Do(func() {
		s.mu.Lock()
		cwd, roots := s.cwd, append([]string(nil), s.roots...)
		s.mu.Unlock()
		s.envFacts = gatherFacts(cwd, roots, s.agent.cfg.Home, s.agent.cfg.EnvPolicy)
	})
	return s.envFacts
}

func gatherFacts(cwd string, roots []string, home string, env *proc.EnvPolicy) *envFacts {
	f := &envFacts{
		date:      time.Now().Format("2006-01-02 (Monday)"),
		platform:  runtime.GOOS + "/" + runtime.GOARCH,
		osVersion: osVersion(),
		shell:     shellName(),
	}
	ctx, cancel := context.WithTimeout(context.Background(), envFactsBudget)
	defer cancel()
	g := gitRunner{ctx: ctx, cwd: cwd, roots: roots, home: home, env: env}
	top, ok := g.run("rev-parse", "--show-toplevel")
	if !ok {
		f.gitNote = g.note
		return f
	}
	f.inRepo = true
	var b strings.Builder
	fmt.Fprintf(&b, "Repository root: %s\n", top)
	if branch, ok := g.run("rev-parse", "--abbrev-ref", "HEAD"); ok {
		fmt.Fprintf(&b, "Current branch: %s\n", branch)
	}
	if main := g.mainBranch(); main != "" {
		fmt.Fprintf(&b, "Main branch (the usual base for pull requests): %s\n", main)
	}
	if status, ok := g.run("status", "--porcelain=v1", "--untracked-files=normal"); ok {
		lines := strings.Split(status, "\n")
		switch {
		case status == "":
			b.WriteString("Status: clean\n")
		case len(lines) > maxStatusLines:
			fmt.Fprintf(&b, "Status (%d changed or untracked paths; the first %d):\n%s\n", len(lines), maxStatusLines, strings.Join(lines[:maxStatusLines], "\n"))
		default:
			fmt.Fprintf(&b, "Status:\n%s\n", status)
		}
	}
	if log, ok := g.run("log", "--no-decorate", "--oneline", fmt.Sprintf("-n%d", maxCommits)); ok && log != "" {
		fmt.Fprintf(&b, "Recent commits:\n%s\n", log)
	}
	f.git = strings.TrimRight(b.String(), "\n")
	f.gitNote = g.note
	return f
}

// gitRunner runs read-only git commands for the facts: in the read-only
// sandbox where there is one, always with the repository's program-running
// settings off (the repository is untrusted input), within ctx.
type gitRunner struct {
	ctx        context.Context
	cwd, home  string
	roots      []string
	env        *proc.EnvPolicy
	note       string
	policyOnce sync.Once
	policy     *sandbox.Policy
}

func (g *gitRunner) run(args ...string) (string, bool) {
	if g.ctx.Err() != nil {
		g.note = fmt.Sprintf("git did not answer within %s; the git facts are incomplete", envFactsBudget)
		return "", false
	}
	g.policyOnce.Do(func() {
		if sandbox.Check().Available() {
			g.policy = &sandbox.Policy{Read: append(append([]string(nil), g.roots...), gitConfigFiles(g.home)...), ReadSystem: true}
		}
	})
	res := proc.Run(g.ctx, proc.Cmd{
		Path: "git", Args: append([]string{"--no-optional-locks"}, args...), Dir: g.cwd,
		Env: append(os.Environ(), gitNeutralEnv...), EnvPolicy: g.env, Sandbox: g.policy,
		SplitStderr: true, OutputLimit: 16 << 10, Grace: 100 * time.Millisecond,
	})
	switch {
	case res.TimedOut || res.Canceled || g.ctx.Err() != nil:
		g.note = fmt.Sprintf("git did not answer within %s; the git facts are incomplete", envFactsBudget)
		return "", false
	case res.Err != nil || res.ExitCode != 0:
		return "", false
	}
	return strings.TrimRight(res.Output, "\n"), true
}

// mainBranch is the remote's default branch, else main or master where
// one exists locally.
func (g *gitRunner) mainBranch() string {
	if ref, ok := g.run("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"); ok && ref != "" {
		return strings.TrimPrefix(ref, "origin/")
	}
	for _, b := range []string{"main", "master"} {
		if _, ok := g.run("rev-parse", "--verify", "--quiet", "refs/heads/"+b); ok {
			return b
		}
	}
	return ""
}

func osVersion() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return runtime.GOOS
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
}

// shellName is the shell Bash commands run in.
func shellName() string {
	if _, err := os.Stat("/bin/bash"); err == nil {
		return "bash"
	}
	if sh := os.Getenv("SHELL"); sh != "" {
		return filepath.Base(sh)
	}
	return "sh"
}

// prompt is the facts as a system block.
func (f *envFacts) prompt(model string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Facts at the start of this session:\n- Today's date: %s\n- Platform: %s (%s)\n- Shell for Bash commands: %s\n- Model: %s\n", f.date, f.platform, f.osVersion, f.shell, model)
	if !f.inRepo {
		b.WriteString("- The working directory is not in a git repository.\n")
	}
	if f.git != "" {
		b.WriteString("\nGit (as the session started; it changes as you work):\n" + f.git + "\n")
	}
	if f.gitNote != "" {
		b.WriteString("\n(" + f.gitNote + ")\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
