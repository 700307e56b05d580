package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// TaskOutputInput is the TaskOutput tool's input (Claude Code's shape).
type TaskOutputInput struct {
	TaskID  string `json:"task_id" jsonschema_description:"The id of the background task, as Bash returned it."`
	Block   *bool  `json:"block,omitempty" jsonschema:"default=true" jsonschema_description:"Wait for the task to finish (up to timeout) before answering. Default true; false answers at once with what is there."`
	Timeout int    `json:"timeout,omitempty" jsonschema:"minimum=0,maximum=600000,default=30000" jsonschema_description:"How long to wait when block is true, in milliseconds (default 30000, at most 600000)."`
}

// TaskStopInput is the TaskStop tool's input (Claude Code's shape, with
// its deprecated shell_id).
type TaskStopInput struct {
	TaskID  string `json:"task_id,omitempty" jsonschema_description:"The id of the background task to stop."`
	ShellID string `json:"shell_id,omitempty" jsonschema_description:"Deprecated: use task_id."`
}

// BashOutputInput and KillShellInput are the inputs of the tools' older
// names, which cordis still accepts but does not offer.
type BashOutputInput struct {
	BashID string `json:"bash_id" jsonschema_description:"The id of the background shell."`
	Filter string `json:"filter,omitempty" jsonschema_description:"A regular expression: only output lines matching it are returned."`
}

type KillShellInput struct {
	ShellID string `json:"shell_id" jsonschema_description:"The id of the background shell to kill."`
}

var (
	taskOutputSpec = specFor[TaskOutputInput]()
	taskStopSpec   = specFor[TaskStopInput]()
	bashOutputSpec = specFor[BashOutputInput]()
	killShellSpec  = specFor[KillShellInput]()
)

const (
	taskOutputDefaultWait = 30 * time.Second
	taskOutputMaxWait     = 600 * time.Second
)

type taskOutputTool struct{}

func (taskOutputTool) Name() string { return "TaskOutput" }

func (taskOutputTool) Description() string {
	return `Returns the output of a background task (a Bash command started with run_in_background) and whether it is still running, finished or was stopped.

- task_id is the id Bash returned when it started the task (bash_1, bash_2, ...).
- Each call returns only the output written since the previous call for that task.
- By default it waits for the task to finish, up to timeout milliseconds (30000 by default); with block false it answers at once, which suits checking on a server or watcher that never ends.
- Output longer than 30000 characters is cut to its end, with a note of what was left out.`
}

func (taskOutputTool) Schema() json.RawMessage { return taskOutputSpec.schema() }
func (taskOutputTool) Kind() Kind              { return KindExecute }
func (taskOutputTool) ReadOnly() bool          { return true }

func (taskOutputTool) Describe(env *Env, input json.RawMessage) Description {
	var in TaskOutputInput
	describeInput(input, &in)
	return Description{Title: "Output of background task " + in.TaskID}
}

func (t taskOutputTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in TaskOutputInput
	if err := taskOutputSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if in.Timeout < 0 {
		return Errorf("TaskOutput: timeout must not be negative")
	}
	wait := taskOutputDefaultWait
	if in.Timeout > 0 {
		wait = min(time.Duration(in.Timeout)*time.Millisecond, taskOutputMaxWait)
	}
	if in.Block != nil && !*in.Block {
		wait = 0
	}
	return readTask(ctx, env, t.Name(), in.TaskID, wait, nil)
}

// readTask answers a TaskOutput (or BashOutput) call: it waits up to wait
// for the task to finish, then returns its status and unread output,
// keeping only lines matching filter when it is set.
func readTask(ctx context.Context, env *Env, tool, id string, wait time.Duration, filter *regexp.Regexp) Result {
	if strings.TrimSpace(id) == "" {
		return Errorf("%s: task_id is required", tool)
	}
	if env.Background == nil {
		return Errorf("%s: background tasks are not available here", tool)
	}
	task, err := env.Background.get(id)
	if err != nil {
		return Errorf("%s: %v", tool, err)
	}
	retrieval := "success"
	if wait > 0 && !task.wait(ctx, wait) {
		retrieval = "timeout"
		if ctx.Err() != nil {
			return Errorf("%s: cancelled while waiting for task %s, which is still running", tool, id)
		}
	} else if wait == 0 && task.status() == "running" {
		retrieval = "not_ready"
	}
	out, dropped := task.unread(outputLimit(env))
	if filter != nil {
		out = filterLines(out, filter)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<retrieval_status>%s</retrieval_status>\n<task_id>%s</task_id>\n<status>%s</status>\n", retrieval, id, task.describeStatus())
	if dropped > 0 {
		fmt.Fprintf(&b, "<note>%d earlier bytes of output were dropped</note>\n", dropped)
	}
	if strings.TrimSpace(out) == "" {
		b.WriteString("<output>(no new output)</output>")
	} else {
		b.WriteString("<output>\n" + strings.TrimRight(out, "\n") + "\n</output>")
	}
	return Result{Text: b.String()}
}

func filterLines(out string, re *regexp.Regexp) string {
	var kept []string
	for line := range strings.Lines(out) {
		if re.MatchString(strings.TrimRight(line, "\r\n")) {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}

func outputLimit(env *Env) int {
	if env.OutputLimit > 0 {
		return env.OutputLimit
	}
	return defaultOutputLimit
}

type taskStopTool struct{}

func (taskStopTool) Name() string { return "TaskStop" }

func (taskStopTool) Description() string {
	return `Stops a background task (a Bash command started with run_in_background) by the id Bash returned: its whole process group is killed, children included. Use it for servers and watchers you no longer need; output written before it stopped can still be read with TaskOutput. Tasks you do not stop end when the session closes.`
}

func (taskStopTool) Schema() json.RawMessage { return taskStopSpec.schema() }
func (taskStopTool) Kind() Kind              { return KindExecute }

// ReadOnly: it only ends what this session started in the background.
func (taskStopTool) ReadOnly() bool { return true }

func (taskStopTool) Describe(env *Env, input json.RawMessage) Description {
	var in TaskStopInput
	describeInput(input, &in)
	return Description{Title: "Stop background task " + firstNonBlank(in.TaskID, in.ShellID)}
}

func (t taskStopTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in TaskStopInput
	if err := taskStopSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	return stopTask(env, t.Name(), firstNonBlank(in.TaskID, in.ShellID))
}

func stopTask(env *Env, tool, id string) Result {
	if strings.TrimSpace(id) == "" {
		return Errorf("%s: task_id is required", tool)
	}
	if env.Background == nil {
		return Errorf("%s: background tasks are not available here", tool)
	}
	task, err := env.Background.get(id)
	if err != nil {
		return Errorf("%s: %v", tool, err)
	}
	if !task.stop() {
		return Result{Text: fmt.Sprintf("Task %s had already ended (%s).", id, task.describeStatus())}
	}
	return Result{Text: "Successfully stopped task: " + id + " (" + commandTitle(task.command, 80) + ")"}
}

func firstNonBlank(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// bashOutputTool is TaskOutput under Claude Code's older name and input.
type bashOutputTool struct{ taskOutputTool }

func (bashOutputTool) Name() string            { return "BashOutput" }
func (bashOutputTool) Schema() json.RawMessage { return bashOutputSpec.schema() }

func (bashOutputTool) Describe(env *Env, input json.RawMessage) Description {
	var in BashOutputInput
	describeInput(input, &in)
	return Description{Title: "Output of background task " + in.BashID}
}

func (t bashOutputTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in BashOutputInput
	if err := bashOutputSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	var re *regexp.Regexp
	if in.Filter != "" {
		var err error
		if re, err = regexp.Compile(in.Filter); err != nil {
			return Errorf("BashOutput: filter is not a valid regular expression: %v", err)
		}
	}
	return readTask(ctx, env, t.Name(), in.BashID, 0, re)
}

// killShellTool is TaskStop under Claude Code's older name and input.
type killShellTool struct{ taskStopTool }

func (killShellTool) Name() string            { return "KillShell" }
func (killShellTool) Schema() json.RawMessage { return killShellSpec.schema() }

func (t killShellTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in KillShellInput
	if err := killShellSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	return stopTask(env, t.Name(), in.ShellID)
}
