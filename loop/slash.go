package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/internal/printable"
	"github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/internal/setup"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/mcp"
	"github.com/cordis-agent/cordis/loop/tools"
)

// commandIn reports whether a prompt is a slash command: its first block
// is text that parses as one.
func commandIn(blocks []acp.ContentBlock) (name, args string, ok bool) {
	if len(blocks) == 0 || blocks[0].Type != "text" {
		return "", "", false
	}
	return commands.Parse(strings.TrimLeft(blocks[0].Text, " \t"), nil)
}

// RunsAlongside lets slash commands run while a model turn of the same
// session is in progress (acp.ConcurrentPrompter): read-only commands
// answer at once, the others refuse politely instead of cancelling it.
func (a *Agent) RunsAlongside(req *acp.PromptRequest) bool {
	name, _, ok := commandIn(req.Prompt)
	if !ok {
		return false
	}
	s, err := a.session(req.SessionID)
	if err != nil {
		return false
	}
	if s.busy() {
		return true // it answers at once: read-only, or a refusal
	}
	// With no turn running, a command that may call the model runs as a
	// normal, cancellable turn.
	if strings.HasPrefix(name, mcp.Prefix) {
		return false // MCP prompts start model turns (looking them up may call the server)
	}
	c, found := a.commands.Load(s.cwd).Lookup(name)
	if !found {
		return true
	}
	l, local := c.(*commands.Local)
	return local && l.ReadOnly
}

// availableCommands is the advertised list for a session's cwd.
func (s *Session) availableCommands() []acp.AvailableCommand {
	set := s.agent.commands.Load(s.cwd)
	withMCP, gen := s.commandSet()
	s.mu.Lock()
	s.advertised, s.advertisedMCP = set, gen
	s.mu.Unlock()
	out := []acp.AvailableCommand{}
	for _, c := range withMCP.Commands() {
		sp := commands.SpecOf(c)
		ac := acp.AvailableCommand{Name: sp.Name, Description: cmp.Or(sp.Description, sp.Name)}
		if sp.ArgumentHint != "" {
			ac.Input = &acp.AvailableCommandInput{Hint: sp.ArgumentHint}
		}
		out = append(out, ac)
	}
	return out
}

// refreshCommands re-advertises the command list when a command file
// changed since it was last sent.
func (s *Session) refreshCommands(ctx context.Context) {
	set := s.agent.commands.Load(s.cwd)
	_, gen := s.commandSet()
	s.mu.Lock()
	changed := set != s.advertised || gen != s.advertisedMCP
	s.mu.Unlock()
	if changed {
		s.notify(ctx, acp.AvailableCommandsUpdate{AvailableCommands: s.availableCommands()})
	}
}

// runCommand resolves and runs a slash command. Local commands return
// their intent. A prompt command is returned unexpanded, with a nil
// intent: prompt() expands it only after UserPromptSubmit let the turn
// start, because expanding may run its shell snippets.
func (s *Session) runCommand(ctx context.Context, name, args string) (commands.Intent, *commands.Prompt) {
	set, _ := s.commandSet()
	c, ok := set.Lookup(name)
	s.record(commandEvent{Name: name, Args: args, Known: ok})
	if !ok {
		msg := fmt.Sprintf("Unknown command /%s.", name)
		if sugg := set.Suggest(name); len(sugg) > 0 {
			msg += " Did you mean " + joinSlash(sugg) + "?"
		}
		return commands.ShowError{Message: msg + " Type /help to see the commands."}, nil
	}
	switch c := c.(type) {
	case *commands.Local:
		if !c.ReadOnly && s.busy() {
			return commands.ShowError{Message: fmt.Sprintf("/%s changes the conversation, so it cannot run while a turn is in progress. Cancel the turn first, then run it again.", c.Name)}, nil
		}
		if c.Source == commands.SourceBuiltin {
			if run, ok := builtinRunners[c.Name]; ok {
				return run(ctx, s, args), nil
			}
		}
		return c.Run(ctx, &commands.Invocation{Name: name, Args: args, Cwd: s.cwd}), nil
	case *commands.Prompt:
		if s.busy() {
			return commands.ShowError{Message: fmt.Sprintf("/%s starts a model turn; wait for the current turn to end or cancel it.", c.Name)}, nil
		}
		return nil, c
	}
	panic(fmt.Sprintf("unknown command kind %T", c))
}

func joinSlash(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "/" + n
	}
	return strings.Join(out, ", ")
}

// expander builds the template expander for one prompt command of a
// turn: files confined to the session's directories, every shell snippet
// governed like a Bash call (approveSnippets), 10 s per command.
func (s *Session) expander(command, turnID string) *commands.Expander {
	env := &tools.Env{Cwd: s.cwd, Roots: s.roots}
	var uses map[string]sandboxUse // how each approved snippet runs
	return &commands.Expander{
		Resolve: env.Resolve,
		Roots:   s.roots,
		Approve: func(ctx context.Context, cmds []string) ([]string, error) {
			run, u, err := s.approveSnippets(ctx, command, turnID, cmds)
			uses = u
			return run, err
		},
		Shell: func(ctx context.Context, command string) (string, error) {
			c := proc.Cmd{Path: "sh", Args: []string{"-c", command}, Dir: s.cwd, Timeout: 10 * time.Second, OutputLimit: 20000, EnvPolicy: s.agent.cfg.EnvPolicy}
			if use := uses[command]; use != unconfined {
				var extra []string
				c.Sandbox, extra = s.sandboxFor(use)
				c.Env = append(os.Environ(), extra...)
			}
			res := proc.Run(ctx, c)
			if res.Err != nil {
				return "", res.Err
			}
			out := strings.TrimRight(res.Output, "\n")
			if res.TimedOut {
				return out, fmt.Errorf("timed out after 10s")
			}
			return out, nil
		},
	}
}

// carryOut performs a local command's intent and returns the stop reason.
func (s *Session) carryOut(ctx context.Context, turnID string, intent commands.Intent) acp.StopReason {
	switch in := intent.(type) {
	// What a command shows (/hooks, /mcp, /help, /doctor) lists what
	// projects and servers wrote, so it is escaped as the CLI's review
	// commands are (shown.go).
	case commands.ShowText:
		s.say(ctx, printable.Text(in.Text))
	case commands.ShowError:
		s.say(ctx, printable.Text(in.Message))
	case commands.ClearConversation:
		s.clearConversation(ctx)
	case commands.CompactConversation:
		return s.compact(ctx, turnID, in.Instructions, "manual")
	case commands.SubmitPrompt:
		// Handled by prompt() before it gets here.
		s.say(ctx, "internal error: a prompt command reached carryOut")
	}
	return acp.StopEndTurn
}

func (s *Session) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running > 0
}

// builtinCommands are cordis's own commands. They find their session in
// the context (runCommand puts it there).
// builtinCommand is a built-in slash command: its spec for the registry
// and the session method that runs it.
type builtinCommand struct {
	spec commands.Spec
	run  func(ctx context.Context, s *Session, args string) commands.Intent
}

func builtin(name, desc, hint string, readOnly bool, run func(ctx context.Context, s *Session, args string) commands.Intent, aliases ...string) builtinCommand {
	return builtinCommand{spec: commands.Spec{Name: name, Description: desc, ArgumentHint: hint, Source: commands.SourceBuiltin, ReadOnly: readOnly, Aliases: aliases}, run: run}
}

// builtinTable lists the built-in commands, in /help order.
func builtinTable() []builtinCommand {
	return []builtinCommand{
		builtin("help", "List the slash commands, or describe one", "[command]", true, cmdHelp),
		builtin("status", "Show the session: model, mode, turns, tokens, hooks", "", true, cmdStatus),
		builtin("clear", "Start a new conversation in this session", "", false, func(context.Context, *Session, string) commands.Intent {
			return commands.ClearConversation{}
		}),
		builtin("compact", "Replace the conversation with a summary to free context", "[instructions]", false, func(_ context.Context, _ *Session, args string) commands.Intent {
			return commands.CompactConversation{Instructions: args}
		}),
		builtin("hooks", "List the hooks by seam; enable or disable one", "[enable|disable NAME]", true, cmdHooks),
		builtin("budget", "Show the session's token and cost use", "", true, cmdBudget),
		// /model and /mode run alongside a turn, as the editor's pickers
		// (session/set_config_option, set_mode) do: the turn reads the
		// model and mode afresh at its next step.
		builtin("model", "Show or switch the model", "[model]", true, cmdModel),
		builtin("mode", "Show or switch the permission mode", "[default|acceptEdits|plan|bypassPermissions]", true, cmdMode),
		builtin("export", "Write the conversation to a file", "[md|json] [path]", true, cmdExport),
		builtin("doctor", "Check configuration, hooks, commands and the model provider", "", true, cmdDoctor),
		builtin("reload", "Reload command files and re-advertise the command list", "", true, cmdReload),
		builtin("rename", "Show or change the thread's title", "[title]", true, cmdRename),
	}
}

// builtinRunners runs a built-in command by name for a session; the
// registry only knows their specs (a command's Run has no session).
var builtinRunners = func() map[string]func(context.Context, *Session, string) commands.Intent {
	m := map[string]func(context.Context, *Session, string) commands.Intent{}
	for _, b := range builtinTable() {
		m[b.spec.Name] = b.run
	}
	return m
}()

// builtinCommands are the built-in commands for the registry. The loop
// runs them itself (runCommand), with the session they are for.
func builtinCommands() []commands.Command {
	var out []commands.Command
	for _, b := range builtinTable() {
		out = append(out, &commands.Local{Spec: b.spec, Run: func(context.Context, *commands.Invocation) commands.Intent {
			return commands.ShowError{Message: "internal error: /" + b.spec.Name + " ran without its session"}
		}})
	}
	return out
}

func cmdHelp(ctx context.Context, s *Session, args string) commands.Intent {
	set, _ := s.commandSet()
	if name := strings.TrimPrefix(strings.TrimSpace(args), "/"); name != "" {
		c, ok := set.Lookup(name)
		if !ok {
			return commands.ShowError{Message: fmt.Sprintf("No command /%s. Type /help to see the commands.", name)}
		}
		sp := commands.SpecOf(c)
		var b strings.Builder
		fmt.Fprintf(&b, "/%s %s\n\n%s\n\nSource: %s", sp.Name, sp.ArgumentHint, sp.Description, sp.Source)
		if sp.Path != "" {
			fmt.Fprintf(&b, " (%s)", sp.Path)
		}
		if len(sp.Aliases) > 0 {
			fmt.Fprintf(&b, "\nAliases: %s", joinSlash(sp.Aliases))
		}
		return commands.ShowText{Text: b.String()}
	}
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range set.Commands() {
		sp := commands.SpecOf(c)
		fmt.Fprintf(&b, "- /%s", sp.Name)
		if sp.ArgumentHint != "" {
			fmt.Fprintf(&b, " %s", sp.ArgumentHint)
		}
		fmt.Fprintf(&b, " — %s", cmp.Or(sp.Description, "(no description)"))
		if sp.Source != commands.SourceBuiltin {
			fmt.Fprintf(&b, " [%s]", sp.Source)
		}
		b.WriteString("\n")
	}
	b.WriteString(commandFolders(s.agent.cfg.Sources.Commands, s.agent.cfg.Home))
	return commands.ShowText{Text: b.String()}
}

// commandFolders is /help's last line: where custom commands are read
// from, the project's folders then the user's, home shown as ~.
func commandFolders(sources []setup.Source, home string) string {
	var project, user []string
	for _, src := range sources {
		if src.Project {
			project = append(project, src.Path)
		} else if rel, err := filepath.Rel(home, src.Path); home != "" && err == nil && filepath.IsLocal(rel) {
			user = append(user, "~/"+filepath.ToSlash(rel))
		} else {
			user = append(user, src.Path)
		}
	}
	var parts []string
	if len(project) > 0 {
		parts = append(parts, strings.Join(project, " or ")+" (project)")
	}
	if len(user) > 0 {
		parts = append(parts, strings.Join(user, " or ")+" (user)")
	}
	if len(parts) == 0 {
		return ""
	}
	return "\nCustom commands are Markdown files in " + strings.Join(parts, " and ") + "."
}

func cmdModel(ctx context.Context, s *Session, args string) commands.Intent {
	name := strings.TrimSpace(args)
	if name == "" {
		s.mu.Lock()
		cur := s.model
		s.mu.Unlock()
		return commands.ShowText{Text: fmt.Sprintf("Model: %s\nAvailable: %s", cur, strings.Join(s.agent.cfg.Models, ", "))}
	}
	if !slices.Contains(s.agent.cfg.Models, name) {
		return commands.ShowError{Message: fmt.Sprintf("Unknown model %q. Available: %s", name, strings.Join(s.agent.cfg.Models, ", "))}
	}
	s.mu.Lock()
	s.model = name
	s.mu.Unlock()
	s.record(configChangeEvent{ConfigID: configModel, Value: name})
	s.notify(ctx, acp.ConfigOptionUpdate{ConfigOptions: s.configOptions()})
	s.reportWindow(ctx)
	return commands.ShowText{Text: "Model set to " + name + "."}
}

func cmdMode(ctx context.Context, s *Session, args string) commands.Intent {
	name := strings.TrimSpace(args)
	if name == "" {
		s.mu.Lock()
		cur := s.mode
		s.mu.Unlock()
		var ids []string
		for _, m := range s.availableModes() {
			ids = append(ids, m.ID)
		}
		return commands.ShowText{Text: fmt.Sprintf("Mode: %s\nAvailable: %s", cur, strings.Join(ids, ", "))}
	}
	if err := s.setMode(name); err != nil {
		return commands.ShowError{Message: errorMessage(err)}
	}
	s.notify(ctx, acp.CurrentModeUpdate{CurrentModeID: name})
	s.notify(ctx, acp.ConfigOptionUpdate{ConfigOptions: s.configOptions()})
	return commands.ShowText{Text: "Mode set to " + name + "."}
}

func cmdReload(ctx context.Context, s *Session, _ string) commands.Intent {
	s.agent.commands.Invalidate(s.cwd)
	list := s.availableCommands()
	s.notify(ctx, acp.AvailableCommandsUpdate{AvailableCommands: list})
	return commands.ShowText{Text: fmt.Sprintf("Reloaded: %d commands available.", len(list))}
}

// errorMessage is what the user reads of err: an ACP error's message
// without its JSON-RPC code, any other error as it is.
func errorMessage(err error) string {
	if ae, ok := errors.AsType[*acp.Error](err); ok {
		return ae.Message
	}
	return err.Error()
}
