package loop

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/loop/commands"
)

// snippetTool is the tool a prompt command's shell snippet is governed
// as: it runs `sh -c`, so hooks of both dialects and the permission rules
// see it as Claude Code's Bash with {"command": ...}.
const snippetTool = "Bash"

// approveSnippets governs the shell snippets of one prompt command the way
// a Bash call is governed, all of them before any runs: each passes the
// PreToolUse seam (the hooks of both dialects and the built-in permission
// rules; a hook may rewrite the command) and the permission mode, and the
// ones still needing approval pass the PermissionRequest seam and are then
// shown together, each in full, in one permission request. Any denial
// runs none of them and names the command and the reason; anything that
// cannot be answered denies (fail closed). It returns the commands to run.
func (s *Session) approveSnippets(ctx context.Context, command, turnID string, cmds []string) ([]string, map[string]sandboxUse, error) {
	g := snippetGovernor{s: s, turnID: turnID, run: slices.Clone(cmds), askReason: map[int]string{}, confine: map[int]sandboxUse{}}
	ask, err := g.preToolUse(ctx)
	if err != nil {
		return nil, nil, err
	}
	askUser, err := g.permissionRequest(ctx, ask)
	if err != nil {
		return nil, nil, err
	}
	if len(askUser) > 0 {
		if err := g.confirm(ctx, command, askUser); err != nil {
			return nil, nil, err
		}
	}
	// A snippet runs confined as the Bash call it stands for would: read-
	// only when the read-only allowance or plan mode let it through, in
	// the workspace sandbox when the session's sandbox is on.
	uses := map[string]sandboxUse{}
	for i, c := range g.run {
		use := g.confine[i]
		if use == unconfined && s.workspaceConfined(permrules.NewCall("Bash", bashInput(c), s.cwd), bashInput(c)) {
			use = confinedWorkspace
		}
		if prev, ok := uses[c]; !ok || use == confinedReadOnly || prev == confinedWorkspace && use != unconfined {
			uses[c] = use
		}
	}
	return g.run, uses, nil
}

// snippetGovernor is one prompt command's snippets on their way through
// the seams and the user.
type snippetGovernor struct {
	s         *Session
	turnID    string
	run       []string       // the commands, as hooks rewrote them
	askReason map[int]string // why a hook wants the user asked
	confine   map[int]sandboxUse
}

// deny records that snippet i does not run, and why.
func (g *snippetGovernor) deny(i int, source, why string) error {
	g.s.record(permissionEvent{verdict{ToolCallID: snippetID(g.turnID, i), Source: source, Message: why}})
	return fmt.Errorf("%w: `%s` %s", commands.ErrShellDenied, g.run[i], why)
}

// allow records that snippet i runs without asking, on source's word.
func (g *snippetGovernor) allow(i int, source string) {
	g.s.record(permissionEvent{verdict{ToolCallID: snippetID(g.turnID, i), Allowed: true, Source: source}})
}

// preToolUse passes every snippet through PreToolUse (as Bash) and the
// permission mode; it returns the snippets that still need an answer.
func (g *snippetGovernor) preToolUse(ctx context.Context) (ask []int, err error) {
	s := g.s
	s.mu.Lock()
	mode := s.mode
	s.mu.Unlock()
	for i := range g.run {
		pre := s.runHook(ctx, &hooks.Input{Event: hooks.PreToolUse, TurnID: g.turnID, ToolName: snippetTool, ToolUseID: snippetID(g.turnID, i), ToolInput: bashInput(g.run[i])})
		s.showSystemMessages(ctx, pre)
		switch {
		case pre.StopTurn:
			return nil, g.deny(i, "hook", "was stopped by a PreToolUse hook: "+cmp.Or(pre.StopReason, pre.Reason, "no reason given"))
		case pre.Permission == hooks.Deny:
			return nil, g.deny(i, "hook", "was denied by a PreToolUse hook: "+cmp.Or(pre.Reason, "no reason given"))
		}
		if pre.UpdatedInput != nil {
			rewritten, ok := bashCommand(pre.UpdatedInput)
			if !ok {
				return nil, g.deny(i, "hook", "was rewritten by a PreToolUse hook into an input without a command")
			}
			g.run[i] = rewritten
		}
		// The command's allowed-tools (granted for this turn before it
		// expands) and the user's "always allow" answers pre-approve a
		// snippet as they do a Bash call: Claude Code runs a command's
		// `!` lines under its allowed-tools without asking.
		call := permrules.NewCall(snippetTool, bashInput(g.run[i]), s.cwd)
		granted, _ := s.answers.match(call, s.cwd)
		granted = cmp.Or(granted, s.grants.match(call))
		if mode == ModePlan || confinedByHook(pre) {
			g.confine[i] = confinedReadOnly
		}
		switch {
		case mode == ModePlan && !s.readOnlyCommand(call):
			// A snippet that only reads runs in plan mode, as a Bash
			// call that only reads does (permit).
			return nil, g.deny(i, "mode", "cannot run in plan mode, which is read-only")
		case pre.Permission == hooks.Ask:
			ask = append(ask, i)
			g.askReason[i] = pre.Reason
		case pre.Permission == hooks.Allow:
			g.allow(i, "hook")
		case granted != "":
			g.s.record(permissionEvent{verdict{ToolCallID: snippetID(g.turnID, i), Allowed: true, Source: "remembered", Rule: granted}})
		case mode == ModeBypass:
			g.allow(i, "mode")
		default:
			ask = append(ask, i)
		}
	}
	return ask, nil
}

// permissionRequest passes the snippets that need an answer through the
// PermissionRequest seam; it returns those left for the user.
func (g *snippetGovernor) permissionRequest(ctx context.Context, ask []int) (askUser []int, err error) {
	for _, i := range ask {
		pd := g.s.runHook(ctx, &hooks.Input{Event: hooks.PermissionRequest, TurnID: g.turnID, ToolName: snippetTool, ToolUseID: snippetID(g.turnID, i), ToolInput: bashInput(g.run[i])})
		switch pd.Permission {
		case hooks.Deny:
			return nil, g.deny(i, "permission-hook", "was denied by a PermissionRequest hook: "+cmp.Or(pd.Reason, "no reason given"))
		case hooks.Allow:
			if pd.UpdatedInput != nil {
				rewritten, ok := bashCommand(pd.UpdatedInput)
				if !ok {
					return nil, g.deny(i, "permission-hook", "was rewritten by a PermissionRequest hook into an input without a command")
				}
				g.run[i] = rewritten
			}
			g.allow(i, "permission-hook")
		default:
			askUser = append(askUser, i)
		}
	}
	return askUser, nil
}

// confirm shows the snippets of askUser, each in full, in one permission
// request; anything but "Run them" denies them all.
func (g *snippetGovernor) confirm(ctx context.Context, command string, askUser []int) error {
	s := g.s
	shown := make([]string, len(askUser))
	var reasons []string
	for j, i := range askUser {
		shown[j] = g.run[i]
		if g.askReason[i] != "" {
			reasons = append(reasons, fmt.Sprintf("A hook asks you to confirm `%s`: %s", g.run[i], g.askReason[i]))
		}
	}
	raw, _ := json.Marshal(map[string]any{"commands": shown})
	resp, err := s.requestPermission(ctx, &acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall: acp.ToolCallUpdate{
			ToolCallID: g.turnID + "-command-shell",
			Title:      fmt.Sprintf("/%s wants to run %d shell command(s) before its prompt is sent", command, len(shown)),
			Kind:       acp.ToolKindExecute, Status: acp.ToolStatusPending, RawInput: raw,
			Content: []acp.ToolCallContent{acp.ContentText(snippetListing(command, shown, reasons))},
		},
		Options: []acp.PermissionOption{
			{OptionID: acp.PermAllowOnce, Name: "Run them", Kind: acp.PermAllowOnce},
			{OptionID: acp.PermRejectOnce, Name: "Don't run", Kind: acp.PermRejectOnce},
		},
	})
	why := ""
	switch {
	case err != nil && ctx.Err() != nil:
		why = "the turn was cancelled before you answered"
	case err != nil:
		why = "the permission request failed (" + err.Error() + ")"
	case resp.Outcome.Outcome != "selected":
		why = "the permission request was cancelled"
	case resp.Outcome.OptionID != acp.PermAllowOnce:
		why = "you chose not to run them"
	}
	for _, i := range askUser {
		v := verdict{ToolCallID: snippetID(g.turnID, i), Allowed: why == "", Source: "user", Message: why}
		if resp != nil {
			v.OptionID = resp.Outcome.OptionID
		}
		s.record(permissionEvent{v})
	}
	if why != "" {
		return fmt.Errorf("%w: %s", commands.ErrShellDenied, why)
	}
	return nil
}

// snippetID names a snippet in hook inputs and the session log.
func snippetID(turnID string, i int) string {
	return fmt.Sprintf("%s-command-shell-%d", turnID, i+1)
}

// bashInput is the tool input a snippet is governed with. HTML escaping is
// off so that hooks and the log see `>` and `&` as the model's Bash
// inputs have them.
func bashInput(command string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"command": command})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// bashCommand reads the command of a Bash input a hook returned.
func bashCommand(input json.RawMessage) (string, bool) {
	var in struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(input, &in) != nil || in.Command == nil || strings.TrimSpace(*in.Command) == "" {
		return "", false
	}
	return *in.Command, true
}

// snippetListing is the permission request's content: every command in
// full, each in a fence longer than any backtick run inside it, so a
// command cannot close its fence early and hide a part of itself.
func snippetListing(command string, cmds, reasons []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The command /%s runs these shell commands in the project directory; nothing runs unless you allow it:\n", command)
	for _, c := range cmds {
		fence := strings.Repeat("`", max(3, longestRun(c, '`')+1))
		fmt.Fprintf(&b, "\n%ssh\n%s\n%s\n", fence, c, fence)
	}
	for _, r := range reasons {
		b.WriteString("\n" + r + "\n")
	}
	return b.String()
}

func longestRun(s string, c byte) int {
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return longest
}
