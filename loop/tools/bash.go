package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/internal/sandbox"
)

// BashInput is the Bash tool's input (Claude Code's shape).
type BashInput struct {
	Command         string `json:"command" jsonschema_description:"The shell command to run."`
	Timeout         int    `json:"timeout,omitempty" jsonschema:"minimum=1,maximum=600000" jsonschema_description:"Optional timeout in milliseconds (at most 600000). The default is 120000 (two minutes)."`
	Description     string `json:"description,omitempty" jsonschema_description:"A short description of what the command does in 5-10 words in the active voice (for example: List files in the current directory)."`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema_description:"Start the command in the background and return at once with a task id; read its output with TaskOutput and stop it with TaskStop."`
	// DangerouslyDisableSandbox asks to run outside the sandbox (Claude
	// Code's name): the loop asks the user every time, and ignores it where
	// the settings forbid unsandboxed commands.
	DangerouslyDisableSandbox bool `json:"dangerouslyDisableSandbox,omitempty" jsonschema_description:"Run this command outside the sandbox. Set it only after a command failed because the sandbox blocked it (a write outside the project, a network request); the user is asked every time."`
}

const (
	bashDefaultTimeout = 120 * time.Second
	bashMaxTimeout     = 600 * time.Second
	// bashGrace is the delay between SIGTERM and SIGKILL on timeout or
	// cancellation.
	bashGrace = 2 * time.Second
	// cleanupTimeout bounds the terminal calls made after a cancellation.
	cleanupTimeout     = 10 * time.Second
	defaultOutputLimit = 30000
)

var bashSpec = specFor[BashInput]()

// shell is the program commands run under: bash, or sh where bash is
// missing. name is what an editor terminal is asked to run (its PATH
// decides); path is what runs locally.
var shell = sync.OnceValues(func() (name, path string) {
	if p, err := exec.LookPath("bash"); err == nil {
		return "bash", p
	}
	return "sh", "sh"
})

type bashTool struct{}

func (bashTool) Name() string { return "Bash" }

func (bashTool) Description() string {
	return `Runs a command with bash -c in the session's working directory and returns its combined standard output and standard error.

- Each call starts a fresh shell: cd, variables and background jobs do not carry over, and anything still running when the command ends is killed.
- Quote paths that contain spaces.
- The default timeout is two minutes; give timeout (milliseconds, at most 600000) for longer commands.
- Output longer than 30000 characters is cut in the middle.
- Prefer Read, Glob, Grep, Edit and Write over cat, find, grep, sed and echo for working with files.
- Give a short description of what the command does.
- Standard input is empty: interactive commands will not get answers.
- For a command that keeps running (a dev server, a watcher, a long build), set run_in_background: the call returns at once with a task id; read new output with TaskOutput and stop the task with TaskStop. Do not append & to the command instead. Background tasks end when the session closes.
- Run independent commands as separate calls in the same response; chain dependent ones with && in one call.
- Commands may run in a sandbox (writes only inside the project, the network through an allow list). When a command fails because the sandbox blocked it, say so; set dangerouslyDisableSandbox only when running outside it is really needed (the user is asked).

Git:
- Never change git configuration, and never run destructive or history-rewriting commands (push --force, reset --hard, clean -fd, checkout -- ., branch -D, rebase of published commits) unless the user asked for exactly that.
- Never skip hooks or signing (--no-verify, --no-gpg-sign, -c commit.gpgsign=false) unless asked. If a hook fails, fix the cause and make a new commit rather than amending one you did not make.
- Commit only when the user asks. Then: run git status, git diff (staged and unstaged) and git log -n 5 together to see the change and the project's message style; stage the files that belong to the change by name (not git add -A when unrelated or secret files are around); write a message that says why the change was made; check git status afterwards.
- Do not push unless asked. Create a pull request only when asked (gh pr create), with a title and a body that say what changed and how it was tested; look at every commit the branch adds, not just the last.
- Pass -m or a heredoc for messages: interactive editors (git rebase -i, git add -i, an editor for the commit message) cannot be answered here.`
}

func (bashTool) Schema() json.RawMessage { return bashSpec.schema() }
func (bashTool) Kind() Kind              { return KindExecute }
func (bashTool) ReadOnly() bool          { return false }

// Describe titles the call with the command itself, not the model's
// description of it: the user approves what runs. The title is shortened
// only with a visible marker, and the whole command is the Detail, as a
// fenced block (followed by the model's description, if any), because
// editors hide an execute call's raw input.
func (bashTool) Describe(env *Env, input json.RawMessage) Description {
	var in BashInput
	describeInput(input, &in)
	command := strings.TrimSpace(in.Command)
	if command == "" {
		return Description{Title: "Bash"}
	}
	detail := Fenced(command, "sh")
	if in.RunInBackground {
		detail += "\n\nRuns in the background."
	}
	if in.DangerouslyDisableSandbox {
		detail += "\n\n**Runs outside the sandbox.**"
	}
	if d := strings.TrimSpace(in.Description); d != "" {
		detail += "\n\n" + d
	}
	return Description{Title: commandTitle(command, bashTitleChars), Detail: detail}
}

// bashTitleChars is how much of a command's first line a title shows.
const bashTitleChars = 120

// commandTitle is the command's first line, cut to n characters with "…"
// when longer, and " …(+N lines)" when more lines follow, so a title
// never looks like the whole command when it is not.
func commandTitle(command string, n int) string {
	lines := strings.Split(strings.TrimSpace(command), "\n")
	title := strings.TrimRight(lines[0], "\r \t")
	if r := []rune(title); len(r) > n {
		title = strings.TrimRight(string(r[:n-1]), " ") + "…"
	}
	if more := len(lines) - 1; more > 0 {
		title += " …(+" + plural(more, "line", "lines") + ")"
	}
	return title
}

// Fenced is text as a Markdown code block of lang, with a fence longer
// than any run of backticks inside it.
func Fenced(text, lang string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + text + "\n" + fence
}

func (t bashTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in BashInput
	if err := bashSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if strings.TrimSpace(in.Command) == "" {
		return Errorf("Bash: command is required")
	}
	if in.Timeout < 0 {
		return Errorf("Bash: timeout must be a positive number of milliseconds")
	}
	if in.RunInBackground {
		return startInBackground(env, in.Command)
	}
	timeout := bashTimeout(in.Timeout)
	limit := env.OutputLimit
	if limit <= 0 {
		limit = defaultOutputLimit
	}
	if env.Terminals != nil {
		return runInTerminal(ctx, env, in.Command, timeout, limit)
	}
	_, shellPath := shell()
	res := proc.Run(ctx, proc.Cmd{
		Path:        shellPath,
		Args:        []string{"-c", in.Command},
		Dir:         env.Cwd,
		OutputLimit: limit,
		Timeout:     timeout,
		Grace:       bashGrace,
		EnvPolicy:   env.EnvPolicy,
		Env:         env.commandEnv(),
		Sandbox:     env.Sandbox,
	})
	if res.Err != nil && !res.Canceled {
		if env.Sandbox != nil {
			return Errorf("Bash: the command was not run: it must run in the sandbox, and %v", res.Err)
		}
		return Errorf("Bash: cannot run the command: %v", res.Err)
	}
	if r, failed := sandboxFailure(env, res.ExitCode, res.Output); failed {
		return r
	}
	return commandResult(res.Output, "", commandEnd{
		exitCode: res.ExitCode, signal: res.Signal,
		timedOut: res.TimedOut, canceled: res.Canceled, timeout: timeout,
	})
}

// sandboxFailure recognizes the sandbox helper's refusal (it ran nothing)
// and says so, instead of passing it off as the command's own failure.
func sandboxFailure(env *Env, exitCode int, output string) (Result, bool) {
	if env.Sandbox == nil || exitCode != sandbox.ExitUnenforced {
		return Result{}, false
	}
	i := strings.Index(output, sandbox.UnenforcedPrefix)
	if i < 0 {
		return Result{}, false
	}
	line, _, _ := strings.Cut(output[i+len(sandbox.UnenforcedPrefix):], "\n")
	return Errorf("Bash: the command was not run: the sandbox could not be set up (%s).", strings.TrimSpace(line)), true
}

// startInBackground starts the command as a background task of the
// session and answers at once with its id. It always runs locally, even
// when the editor offers terminals: the task must outlive the call, owned
// by cordis, which kills it when the session closes.
func startInBackground(env *Env, command string) Result {
	if env.Background == nil {
		return Errorf("Bash: background commands are not available here; run the command without run_in_background")
	}
	task, err := env.Background.start(env, command)
	if err != nil {
		return Errorf("Bash: cannot start the command in the background: %v", err)
	}
	return Result{Text: fmt.Sprintf("Command running in background with ID: %s. Read its output with TaskOutput (task_id %q) and stop it with TaskStop.", task.id, task.id)}
}

// bashTimeout turns the input's milliseconds into the run's timeout: the
// default for 0, at most bashMaxTimeout.
func bashTimeout(ms int) time.Duration {
	if ms <= 0 {
		return bashDefaultTimeout
	}
	return time.Duration(min(ms, int(bashMaxTimeout/time.Millisecond))) * time.Millisecond
}

type commandEnd struct {
	exitCode int // -1: unknown or killed by a signal
	signal   string
	timedOut bool
	canceled bool
	timeout  time.Duration
}

// commandResult renders the output of a finished command for the model:
// the output, a note when the terminal dropped its start, and the exit code
// when it is not zero, or why the command was stopped.
func commandResult(output, note string, end commandEnd) Result {
	var parts []string
	if note != "" {
		parts = append(parts, note)
	}
	if out := strings.TrimRight(output, "\n"); out != "" {
		parts = append(parts, out)
	}
	isErr := true
	switch {
	case end.timedOut:
		parts = append(parts, fmt.Sprintf("Command timed out after %s and was killed.", end.timeout))
	case end.canceled:
		parts = append(parts, "Command was cancelled and killed.")
	case end.signal != "":
		parts = append(parts, "Command was killed by "+end.signal+".")
	case end.exitCode != 0:
		parts = append(parts, fmt.Sprintf("Exit code %d", end.exitCode))
	default:
		isErr = false
		if len(parts) == 0 {
			parts = append(parts, "(no output)")
		}
	}
	return Result{Text: strings.Join(parts, "\n"), IsError: isErr}
}

// runInTerminal runs the command in an editor terminal: create it, report
// its id at once, wait (with the timeout), read the output, and release it
// however the wait ended.
func runInTerminal(ctx context.Context, env *Env, command string, timeout time.Duration, limit int) Result {
	shellName, shellPath := shell()
	name, args := env.terminalCommand(shellName, command)
	if env.Sandbox != nil {
		// The editor runs the cordis binary as the sandbox's helper, which
		// confines the shell and dies with it (an editor that kills only
		// the process it started leaves nothing of the command behind).
		if name == shellName {
			name = shellPath
		}
		var err error
		if name, args, err = sandbox.Command(env.Sandbox, name, args...); err != nil {
			return Errorf("Bash: the command was not run: it must run in the sandbox, and %v", err)
		}
	}
	id, err := env.Terminals.Create(ctx, name, args, env.Cwd, limit)
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("Command was cancelled before it started.")
		}
		return Errorf("Bash: cannot create a terminal: %v", err)
	}
	cleanup, cancelCleanup := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancelCleanup()
	defer env.Terminals.Release(cleanup, id)
	if env.Progress != nil {
		env.Progress(Result{TerminalID: id})
	}

	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	status, waitErr := env.Terminals.WaitForExit(waitCtx, id)
	cancel()
	end := commandEnd{exitCode: -1, timeout: timeout}
	if waitErr != nil {
		switch {
		case ctx.Err() != nil:
			end.canceled = true
		case waitCtx.Err() != nil:
			end.timedOut = true
		}
		_ = env.Terminals.Kill(cleanup, id)
	} else {
		end.exitCode = 0
		if status.ExitCode != nil {
			end.exitCode = *status.ExitCode
		}
		end.signal = status.Signal
	}
	output, truncated, exit, outErr := env.Terminals.Output(cleanup, id)
	if waitErr != nil && !end.canceled && !end.timedOut {
		r := Errorf("Bash: waiting for the terminal failed: %v", waitErr)
		r.TerminalID = id
		return r
	}
	if (end.canceled || end.timedOut) && exit != nil && exit.Signal == "" && exit.ExitCode != nil && *exit.ExitCode == 0 {
		// The command finished on its own as the cancel or the timeout
		// came (the kill found nothing to stop): it succeeded, and saying
		// it was killed would hide what it did. Only a clean exit counts;
		// a killed command never reports 0.
		end = commandEnd{exitCode: 0, timeout: timeout}
	}
	if outErr != nil {
		r := Errorf("Bash: cannot read the terminal's output: %v", outErr)
		r.TerminalID = id
		return r
	}
	if r, failed := sandboxFailure(env, end.exitCode, output); failed {
		r.TerminalID = id
		return r
	}
	note := ""
	if truncated {
		note = "[earlier output was truncated]"
	}
	r := commandResult(output, note, end)
	r.TerminalID = id
	return r
}
