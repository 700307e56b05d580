package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/confine"
	"github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/llm"
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
		ac := acp.AvailableCommand{Name: sp.Name, Description: firstNonEmpty(sp.Description, sp.Name)}
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
	return &commands.Expander{
		Resolve: env.Resolve,
		Roots:   s.roots,
		Approve: func(ctx context.Context, cmds []string) ([]string, error) {
			return s.approveSnippets(ctx, command, turnID, cmds)
		},
		Shell: func(ctx context.Context, command string) (string, error) {
			res := proc.Run(ctx, proc.Cmd{Path: "sh", Args: []string{"-c", command}, Dir: s.cwd, Timeout: 10 * time.Second, OutputLimit: 20000, EnvPolicy: s.agent.cfg.EnvPolicy})
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
	case commands.ShowText:
		s.say(ctx, in.Text)
	case commands.ShowError:
		s.say(ctx, in.Message)
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

func (s *Session) clearConversation(ctx context.Context) {
	s.mu.Lock()
	n := len(s.history)
	s.history = nil
	s.mu.Unlock()
	s.record(clearEvent{MessagesDropped: n})
	s.queueSessionStart(ctx, "clear")
	s.say(ctx, fmt.Sprintf("Started a new conversation (%d earlier messages cleared from the model's context; they stay in the session log).", n))
}

const compactPrompt = `Summarize the conversation so far so that it can continue from your summary alone. Keep: the user's goals and requests, decisions made, files read or changed (with paths) and why, commands run and their important results, open problems and next steps. Be specific and complete; omit pleasantries.`

// compact replaces the history with a model-written summary. PreCompact
// may refuse; SessionStart(compact) runs after it.
func (s *Session) compact(ctx context.Context, turnID, instructions, trigger string) acp.StopReason {
	d := s.runHook(ctx, &hooks.Input{Event: hooks.PreCompact, TurnID: turnID, Trigger: trigger, CustomInstructions: instructions})
	s.showSystemMessages(ctx, d)
	if d.Block || d.StopTurn {
		s.say(ctx, "Compaction was blocked by a hook: "+firstNonEmpty(d.Reason, d.StopReason, "no reason given"))
		return acp.StopEndTurn
	}
	s.mu.Lock()
	history := mergeAdjacent(s.history)
	model := s.model
	s.mu.Unlock()
	if len(history) == 0 {
		s.say(ctx, "Nothing to compact yet.")
		return acp.StopEndTurn
	}
	ask := compactPrompt
	if instructions != "" {
		ask += "\n\nAdditional instructions: " + instructions
	}
	// The history goes as plain text: a request that holds tool_use blocks
	// but offers no tools is refused by some providers, and the summary
	// needs what happened, not the wire shapes.
	msgs := mergeAdjacent(append(flattenForSummary(history), llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(ask)}}))
	req := &llm.Request{Model: model, MaxTokens: s.agent.cfg.MaxTokens, System: []string{"You write precise summaries of coding sessions."}, Messages: msgs}
	s.record(compactionRequestEvent{Model: model, Messages: len(msgs), Purpose: "compaction"})
	resp, err := s.agent.cfg.Provider.Stream(ctx, req, func(llm.Delta) {})
	if err != nil {
		if ctx.Err() != nil {
			return acp.StopCancelled
		}
		s.say(ctx, "Compaction failed, the conversation is unchanged: "+explainModelError(err))
		return acp.StopEndTurn
	}
	// The summary call is billed like any other: it counts in /status,
	// /budget and budget-check, and load rebuilds it from the log.
	s.record(compactionResponseEvent{StopReason: resp.StopReason, Usage: resp.Usage, Model: resp.Model, Purpose: "compaction"})
	s.mu.Lock()
	s.addUsage(resp.Usage, firstNonEmpty(resp.Model, model))
	totals := s.totals
	s.mu.Unlock()
	var summary strings.Builder
	for _, b := range resp.Content {
		if b.Type == llm.BlockText {
			summary.WriteString(b.Text)
		}
	}
	text := strings.TrimSpace(summary.String())
	if text == "" {
		s.say(ctx, "Compaction failed: the model returned no summary; the conversation is unchanged.")
		return acp.StopEndTurn
	}
	s.mu.Lock()
	s.history = []llm.Message{compactedMessage(text)}
	// The context is now about the summary's size until the next response.
	s.lastContextTokens = resp.Usage.OutputTokens
	s.mu.Unlock()
	up := acp.UsageUpdate{Used: int64(resp.Usage.OutputTokens), Size: int64(s.agent.cfg.ContextWindow)}
	if totals.CostKnown {
		up.Cost = &acp.Cost{Amount: math.Round(totals.CostUSD*1e6) / 1e6, Currency: "USD"}
	}
	s.notify(ctx, up)
	s.record(compactionEvent{Summary: text, MessagesBefore: len(history), Trigger: trigger, Instructions: instructions})
	s.queueSessionStart(ctx, "compact")
	s.say(ctx, fmt.Sprintf("Compacted the conversation: %d messages replaced by a summary of %d characters.", len(history), len(text)))
	return acp.StopEndTurn
}

// flattenForSummary renders a history as text messages for the
// compaction request: tool calls and results become short text, thinking
// is dropped.
func flattenForSummary(history []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(history))
	for _, m := range history {
		var b strings.Builder
		for _, bl := range m.Content {
			switch bl.Type {
			case llm.BlockText:
				b.WriteString(bl.Text + "\n")
			case llm.BlockToolUse:
				fmt.Fprintf(&b, "[tool call %s: %s]\n", bl.Name, summarize(string(bl.Input), 1000))
			case llm.BlockToolResult:
				var res strings.Builder
				for _, c := range bl.Content {
					res.WriteString(c.Text)
				}
				label := "tool result"
				if bl.IsError {
					label = "tool error"
				}
				fmt.Fprintf(&b, "[%s: %s]\n", label, summarize(res.String(), 2000))
			case llm.BlockImage:
				b.WriteString("[an image]\n")
			}
		}
		if text := strings.TrimSpace(b.String()); text != "" {
			out = append(out, llm.Message{Role: m.Role, Content: []llm.Block{llm.Text(text)}})
		}
	}
	return out
}

func compactedMessage(summary string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(systemReminder("This session continues an earlier conversation that was compacted. Its summary:\n\n" + summary))}}
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
		builtin("help", "List the slash commands, or describe one", "[command]", true, cmdHelp, "?"),
		builtin("status", "Show the session: model, mode, turns, tokens, hooks", "", true, cmdStatus),
		builtin("clear", "Start a new conversation in this session", "", false, func(context.Context, *Session, string) commands.Intent {
			return commands.ClearConversation{}
		}),
		builtin("compact", "Replace the conversation with a summary to free context", "[instructions]", false, func(_ context.Context, _ *Session, args string) commands.Intent {
			return commands.CompactConversation{Instructions: args}
		}),
		builtin("hooks", "List the hooks by seam; enable or disable one", "[enable|disable NAME]", true, cmdHooks),
		builtin("budget", "Show the session's token and cost use", "", true, cmdBudget),
		builtin("model", "Show or switch the model", "[model]", false, cmdModel),
		builtin("mode", "Show or switch the permission mode", "[default|acceptEdits|plan|bypassPermissions]", false, cmdMode),
		builtin("export", "Write the conversation to a file", "[md|json] [path]", true, cmdExport),
		builtin("doctor", "Check configuration, hooks, commands and the model provider", "", true, cmdDoctor),
		builtin("reload", "Reload command files and re-advertise the command list", "", true, cmdReload),
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
		fmt.Fprintf(&b, " — %s", firstNonEmpty(sp.Description, "(no description)"))
		if sp.Source != commands.SourceBuiltin {
			fmt.Fprintf(&b, " [%s]", sp.Source)
		}
		b.WriteString("\n")
	}
	b.WriteString("\nCustom commands are Markdown files in .cordis/commands or .claude/commands (project) and ~/.cordis/commands or ~/.claude/commands (user).")
	return commands.ShowText{Text: b.String()}
}

func cmdStatus(ctx context.Context, s *Session, _ string) commands.Intent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s\n- cwd: %s\n- model: %s\n- mode: %s\n- turns: %d\n- messages in context: %d\n", s.id, s.cwd, s.model, s.mode, s.turnSeq, len(s.history))
	fmt.Fprintf(&b, "- context: %d of %d tokens\n", s.lastContextTokens, s.agent.cfg.ContextWindow)
	if s.agent.cfg.Status != nil {
		for _, line := range s.agent.cfg.Status(s.id) {
			b.WriteString(line + "\n")
		}
	}
	return commands.ShowText{Text: strings.TrimRight(b.String(), "\n")}
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
	return commands.ShowText{Text: "Model set to " + name + "."}
}

func cmdMode(ctx context.Context, s *Session, args string) commands.Intent {
	name := strings.TrimSpace(args)
	if name == "" {
		s.mu.Lock()
		cur := s.mode
		s.mu.Unlock()
		var ids []string
		for _, m := range modes {
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

func cmdExport(ctx context.Context, s *Session, args string) commands.Intent {
	format, path := "md", ""
	for _, f := range strings.Fields(args) {
		switch {
		case f == "md" || f == "json":
			format = f
		case path == "":
			path = f
		default:
			return commands.ShowError{Message: "Usage: /export [md|json] [path]"}
		}
	}
	if path == "" {
		path = filepath.Join(s.cwd, fmt.Sprintf("cordis-%s.%s", s.id, format))
	}
	env := &tools.Env{Cwd: s.cwd, Roots: s.roots}
	abs, err := env.Resolve(path)
	if err != nil {
		return commands.ShowError{Message: "/export: " + err.Error()}
	}
	s.mu.Lock()
	history := append([]llm.Message(nil), s.history...)
	s.mu.Unlock()
	var data []byte
	if format == "json" {
		data, err = json.MarshalIndent(history, "", "  ")
		if err != nil {
			return commands.ShowError{Message: "/export: " + err.Error()}
		}
	} else {
		data = []byte(markdownTranscript(history))
	}
	// Written through the session's directories: a link swapped in after
	// Resolve cannot lead outside.
	dirs := confine.New(s.roots...)
	defer dirs.Close()
	if err := dirs.WriteFile(abs, data, 0o644); err != nil {
		return commands.ShowError{Message: "/export: " + err.Error()}
	}
	return commands.ShowText{Text: fmt.Sprintf("Exported %d messages to %s.", len(history), abs)}
}

func markdownTranscript(history []llm.Message) string {
	var b strings.Builder
	for _, m := range history {
		for _, bl := range m.Content {
			switch bl.Type {
			case llm.BlockText:
				if m.Role == llm.RoleUser {
					fmt.Fprintf(&b, "## User\n\n%s\n\n", bl.Text)
				} else {
					fmt.Fprintf(&b, "## Assistant\n\n%s\n\n", bl.Text)
				}
			case llm.BlockToolUse:
				fmt.Fprintf(&b, "### Tool call: %s\n\n```json\n%s\n```\n\n", bl.Name, bl.Input)
			case llm.BlockToolResult:
				var out strings.Builder
				for _, c := range bl.Content {
					out.WriteString(c.Text)
				}
				label := "Tool result"
				if bl.IsError {
					label = "Tool error"
				}
				fmt.Fprintf(&b, "### %s\n\n```\n%s\n```\n\n", label, strings.TrimRight(out.String(), "\n"))
			}
		}
	}
	return b.String()
}

func cmdDoctor(ctx context.Context, s *Session, _ string) commands.Intent {
	var lines []string
	ok := func(format string, args ...any) { lines = append(lines, "✓ "+fmt.Sprintf(format, args...)) }
	bad := func(format string, args ...any) { lines = append(lines, "✗ "+fmt.Sprintf(format, args...)) }
	if err := s.agent.authError(); err != nil {
		bad("model provider %s: %v", s.agent.cfg.Provider.Name(), errorMessage(err))
	} else {
		ok("model provider %s has credentials (model %s)", s.agent.cfg.Provider.Name(), s.agent.cfg.Model)
	}
	probe := filepath.Join(s.agent.cfg.StateDir, ".doctor-probe")
	if err := os.WriteFile(probe, nil, 0o600); err != nil {
		bad("state directory %s is not writable: %v", s.agent.cfg.StateDir, err)
	} else {
		os.Remove(probe)
		ok("state directory %s", s.agent.cfg.StateDir)
	}
	set := s.agent.commands.Load(s.cwd)
	ok("%d slash commands", len(set.Commands()))
	for _, e := range set.Errors {
		bad("command file %s", e.String())
	}
	for _, w := range set.Warnings {
		bad("commands: %s", w)
	}
	lines = append(lines, s.mcpDoctor()...)
	if s.agent.cfg.Doctor != nil {
		lines = append(lines, s.agent.cfg.Doctor(s.cwd)...)
	}
	return commands.ShowText{Text: "cordis doctor\n" + strings.Join(lines, "\n")}
}

func cmdReload(ctx context.Context, s *Session, _ string) commands.Intent {
	s.agent.commands.Invalidate(s.cwd)
	list := s.availableCommands()
	s.notify(ctx, acp.AvailableCommandsUpdate{AvailableCommands: list})
	return commands.ShowText{Text: fmt.Sprintf("Reloaded: %d commands available.", len(list))}
}

// hookAdmin is the part of the hook pipeline /hooks drives; hooks.Pipeline
// implements it.
type hookAdmin interface {
	List() []hooks.HookInfo
	Enable(name string) bool
	Disable(name string) bool
}

func cmdHooks(ctx context.Context, s *Session, args string) commands.Intent {
	admin, ok := s.agent.cfg.Hooks.(hookAdmin)
	if !ok {
		return commands.ShowText{Text: "No hook pipeline is configured."}
	}
	fields := strings.Fields(args)
	if len(fields) == 2 && (fields[0] == "enable" || fields[0] == "disable") {
		// Enabling or disabling is process-wide, like the pipeline it
		// changes; it lasts until cordis restarts.
		found := false
		if fields[0] == "enable" {
			found = admin.Enable(fields[1])
		} else {
			found = admin.Disable(fields[1])
		}
		if !found {
			return commands.ShowError{Message: fmt.Sprintf("No hook named %q. Type /hooks to list them.", fields[1])}
		}
		s.record(hookToggleEvent{Name: "hooks", Action: fields[0], Hook: fields[1]})
		return commands.ShowText{Text: fmt.Sprintf("Hook %s %sd (until cordis restarts).", fields[1], fields[0])}
	}
	if len(fields) != 0 {
		return commands.ShowError{Message: "Usage: /hooks [enable|disable NAME]"}
	}
	list := admin.List()
	if len(list) == 0 {
		return commands.ShowText{Text: "No hooks are registered."}
	}
	var b strings.Builder
	b.WriteString("Hooks by seam (lower priority runs first):\n")
	var last hooks.Event
	for _, h := range list {
		if h.Event != last {
			fmt.Fprintf(&b, "%s\n", h.Event)
			last = h.Event
		}
		state := "on"
		if !h.Enabled {
			state = "off"
		}
		fmt.Fprintf(&b, "  - %s (priority %d, %s)\n", h.Name, h.Priority, state)
	}
	return commands.ShowText{Text: strings.TrimRight(b.String(), "\n")}
}

func cmdBudget(ctx context.Context, s *Session, _ string) commands.Intent {
	s.mu.Lock()
	t := s.totals
	s.mu.Unlock()
	cost := "unknown (a model without a known price answered)"
	if t.CostKnown || t.Requests == 0 {
		cost = fmt.Sprintf("$%.4f", t.CostUSD)
	}
	text := fmt.Sprintf("This session: %d model requests, %d tokens, cost %s.\nLimits are set by budgetCheck (maxTokens, maxCostUSD) in the hooks/builtin entry of cordis.yml.", t.Requests, t.Tokens, cost)
	return commands.ShowText{Text: text}
}

// errorMessage is what the user reads of err: an ACP error's message
// without its JSON-RPC code, any other error as it is.
func errorMessage(err error) string {
	if ae, ok := errors.AsType[*acp.Error](err); ok {
		return ae.Message
	}
	return err.Error()
}
