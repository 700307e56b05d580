package loop

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/sandbox"
	"github.com/cordis-agent/cordis/loop/mcp"
	"github.com/cordis-agent/cordis/loop/tools"
)

// verdict is the outcome of the permission flow for one call, as logged.
type verdict struct {
	ToolCallID string `json:"toolCallId"`
	Allowed    bool   `json:"allowed"`
	Source     string `json:"source"` // hook | mode | remembered | permission-hook | user | cancelled | error
	OptionID   string `json:"optionId,omitempty"`
	// Rule is the rule an "always" answer created, or the remembered one
	// that decided.
	Rule         string          `json:"rule,omitempty"`
	Message      string          `json:"message,omitempty"`
	UpdatedInput json.RawMessage `json:"-"`
	// Sandbox says how an allowed Bash call runs: "read-only",
	// "workspace", or "" (unconfined).
	Sandbox string `json:"sandbox,omitempty"`
}

// confinement is how the verdict's call runs.
func (v verdict) confinement() sandboxUse {
	switch v.Sandbox {
	case "read-only":
		return confinedReadOnly
	case "workspace":
		return confinedWorkspace
	}
	return unconfined
}

// needsApproval says whether mode requires asking before tool runs.
// acceptEdits never approves an edit of a file that makes something run
// later (.git/config, .claude/, .mcp.json ...: sandbox.IsProtected):
// two unasked calls, an edit and a git status, would run the model's code.
func (s *Session) needsApproval(mode string, t tools.Tool, call permrules.Call) bool {
	if t.ReadOnly() {
		return false
	}
	switch mode {
	case ModeBypass:
		return false
	case ModeAcceptEdits:
		if t.Kind() == tools.KindEdit && call.Path != "" {
			s.mu.Lock()
			roots := append([]string(nil), s.roots...)
			s.mu.Unlock()
			return sandbox.IsProtected(call.Path, roots, s.agent.cfg.Home)
		}
		return t.Kind() != tools.KindEdit
	}
	return true
}

// readOnlyCommand reports whether call is a Bash command that only reads
// inside the session's directories (permrules.ReadOnlyCommand, the test
// the built-in permission rules use to run such commands unasked).
func (s *Session) readOnlyCommand(call permrules.Call) bool {
	if call.Tool != "Bash" || call.Command == "" || !readOnlyAllowed() {
		return false
	}
	s.mu.Lock()
	dirs := permrules.ReadOnlyDirs{Cwd: s.cwd, Dirs: s.roots, Home: s.agent.cfg.Home}
	s.mu.Unlock()
	return permrules.ReadOnlyCommand(call.Command, dirs)
}

// shownCall is how the editor sees the call being decided.
type shownCall struct {
	desc tools.Description
	kind acp.ToolKind
}

// permit decides whether a call may run. Order: a hook's deny, plan mode
// (which refuses every tool that writes, a Bash command that only reads
// excepted), remembered rejections, a hook's allow, the mode and
// remembered "always allow" answers (a hook's ask forces the question),
// the PermissionRequest seam, then the editor. Anything that cannot be
// answered denies (fail closed).
//
// In plan mode an MCP tool is neither refused nor run on anyone's word but
// the user's for that call: its server's readOnlyHint is not trusted (see
// mcp.Tool.ReadOnly), and no allow from a hook, rule or earlier answer
// makes it read-only, so the editor is asked every time.
func (r *runner) permit(ctx context.Context, t tools.Tool, env *tools.Env, id string, shown shownCall, input json.RawMessage, pre hooks.Decision) verdict {
	s := r.s
	v := verdict{ToolCallID: id}
	call := permrules.NewCall(t.Name(), input, s.cwd)
	s.mu.Lock()
	mode := s.mode
	s.mu.Unlock()
	remembered, rejected := s.answers.match(call, s.cwd)
	if remembered == "" {
		remembered = s.grants.match(call)
	}
	_, isMCP := t.(*mcp.Tool)
	userOnly := mode == ModePlan && isMCP
	// A Bash command that only reads is as read-only as Read, so plan
	// mode lets it through, as Claude Code runs its read-only commands in
	// every mode; whether it then runs unasked is still for the rules.
	readOnly := t.ReadOnly() || (mode == ModePlan && !isMCP && s.readOnlyCommand(call))
	// How an allowed Bash call will run. In plan mode every command runs
	// in the read-only sandbox, whoever allowed it; with the sandbox on,
	// in the workspace sandbox unless it is excluded or leaves it.
	unsandboxed := s.wantsUnsandboxed(t.Name(), input)
	workspace := s.workspaceConfined(call, input)
	switch {
	case t.Name() != "Bash":
	case mode == ModePlan:
		v.Sandbox = "read-only"
	case workspace:
		v.Sandbox = "workspace"
	}

	switch {
	case pre.Permission == hooks.Deny:
		v.Source, v.Message = "hook", "Denied by a PreToolUse hook: "+cmp.Or(pre.Reason, "no reason given")
		return v
	case mode == ModePlan && !readOnly && !userOnly:
		v.Source, v.Message = "mode", "Plan mode is read-only: "+t.Name()+" is not allowed. Describe the change in your plan instead."
		return v
	case rejected != "" && pre.Permission != hooks.Ask:
		v.Source, v.Rule, v.Message = "remembered", rejected, "The user chose to always reject "+rejected+" in this session."
		return v
	case pre.Permission == hooks.Allow && !userOnly && !unsandboxed:
		// Leaving the sandbox is the user's call, every time: no hook,
		// rule or mode answers it.
		v.Allowed, v.Source = true, "hook"
		if confinedByHook(pre) && v.Sandbox == "" {
			v.Sandbox = "read-only"
		}
		return v
	}
	autoSandboxed := workspace && s.settings.Sandbox.AutoAllow
	if pre.Permission != hooks.Ask && !userOnly && !unsandboxed && (!s.needsApproval(mode, t, call) || remembered != "" || autoSandboxed) {
		v.Allowed, v.Source = true, "mode"
		switch {
		case remembered != "":
			v.Source, v.Rule = "remembered", remembered
		case autoSandboxed && s.needsApproval(mode, t, call):
			v.Source = "sandbox"
		}
		return v
	}

	scope, scoped := permrules.ScopeOf(t.Name(), input, s.cwd)
	saves := s.agent.cfg.SavePermissionRule != nil
	// A policy that allows only its own rules offers no "Always allow".
	always := !userOnly && !s.settings.NoAlwaysAllow
	pd := r.hook(ctx, &hooks.Input{Event: hooks.PermissionRequest, ToolName: t.Name(), ToolUseID: id, ToolInput: input,
		PermissionSuggestions: permissionSuggestions(t, mode, scope, scoped && always, saves)})
	switch {
	case pd.Permission == hooks.Allow && !userOnly:
		v.Allowed, v.Source, v.UpdatedInput = true, "permission-hook", pd.UpdatedInput
		r.grantPermissions(ctx, pd.UpdatedPermissions, always, saves)
		return v
	case pd.Permission == hooks.Deny:
		v.Source, v.Message = "permission-hook", "Denied by a PermissionRequest hook: "+cmp.Or(pd.Reason, "no reason given")
		return v
	}

	options := permissionOptions(scope, scoped, saves && always, always)
	req := acp.ToolCallUpdate{ToolCallID: id, Title: shown.desc.Title, Kind: shown.kind, Status: acp.ToolStatusPending,
		Locations: convertLocations(shown.desc.Locations), RawInput: shownInput(input),
		Content: r.permissionContent(ctx, t, env, input, shown.desc, pre, userOnly)}
	stopNotify := s.notifyLater(ctx, s.agent.cfg.PermissionNotifyAfter, "permission_prompt", "cordis needs your permission to use "+t.Name())
	resp, err := s.requestPermission(ctx, &acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall:  req,
		Options:   options,
	})
	stopNotify()
	switch {
	case err != nil && ctx.Err() != nil:
		v.Source, v.Message = "cancelled", "The user cancelled the turn before approving "+t.Name()+"."
		return v
	case err != nil:
		v.Source, v.Message = "error", "The permission request failed ("+err.Error()+"), so "+t.Name()+" was not run."
		return v
	case resp.Outcome.Outcome != "selected":
		v.Source, v.Message = "cancelled", "The permission request was cancelled, so "+t.Name()+" was not run."
		return v
	}
	v.Source, v.OptionID = "user", resp.Outcome.OptionID
	if !offered(options, resp.Outcome.OptionID) {
		v.Message = "The editor answered with a permission option that was not offered (" + resp.Outcome.OptionID + "), so " + t.Name() + " was not run."
		return v
	}
	return r.applyAnswer(ctx, t, v, scope, scoped, saves)
}

// applyAnswer turns the user's chosen option into the verdict, and
// remembers (and, for "Always allow", saves) the rule an "always" answer
// names.
func (r *runner) applyAnswer(ctx context.Context, t tools.Tool, v verdict, scope permrules.Scope, scoped, saves bool) verdict {
	s := r.s
	switch v.OptionID {
	case acp.PermAllowOnce:
		v.Allowed = true
	case acp.PermAllowAlways:
		v.Allowed, v.Rule = true, scope.Rule
		s.answers.remember(scope.Rule, true)
		if saves {
			if err := s.agent.cfg.SavePermissionRule(s.cwd, scope.Rule); err != nil {
				s.showSystemMessages(ctx, hooks.Decision{SystemMessages: []string{
					"cordis could not save the rule " + scope.Rule + " for this project (" + err.Error() + "); it holds for this session only."}})
			}
		}
	case acp.PermRejectAlways:
		rule := rejectScope(t, scope, scoped)
		v.Rule = rule.Rule
		s.answers.remember(rule.Rule, false)
		v.Message = "The user rejected " + rule.Rule + " for the rest of this session."
	case acp.PermRejectOnce:
		v.Message = "The user rejected this " + t.Name() + " call."
	}
	return v
}

// permissionOptions are the answers offered for one call. "Always allow"
// names its scope and where it holds, and is offered only when the call
// has a scope (allowAlways false: plan mode, where the answer would not
// hold); "Always reject" holds for the session, for the same scope or, when
// the call has none, for the tool (rejecting more is the safe side). The
// ids are the kinds, as the snapshots' scripted editor and most clients
// expect.
func permissionOptions(scope permrules.Scope, scoped, saves, allowAlways bool) []acp.PermissionOption {
	opts := []acp.PermissionOption{{OptionID: acp.PermAllowOnce, Name: "Allow", Kind: acp.PermAllowOnce}}
	if scoped && allowAlways {
		where := " in this session"
		if saves {
			where = " in this project"
		}
		opts = append(opts, acp.PermissionOption{OptionID: acp.PermAllowAlways, Name: "Always allow " + scope.Label + where, Kind: acp.PermAllowAlways})
	}
	return append(opts,
		acp.PermissionOption{OptionID: acp.PermRejectOnce, Name: "Reject", Kind: acp.PermRejectOnce},
		acp.PermissionOption{OptionID: acp.PermRejectAlways, Name: "Always reject " + rejectLabel(scope, scoped) + " in this session", Kind: acp.PermRejectAlways})
}

func rejectScope(t tools.Tool, scope permrules.Scope, scoped bool) permrules.Scope {
	if scoped {
		return scope
	}
	return permrules.Scope{Rule: t.Name(), Label: "`" + t.Name() + "`"}
}

func rejectLabel(scope permrules.Scope, scoped bool) string {
	if scoped {
		return scope.Label
	}
	return "this tool"
}

func offered(options []acp.PermissionOption, id string) bool {
	for _, o := range options {
		if o.OptionID == id {
			return true
		}
	}
	return false
}

// permissionContent is what the request shows besides the title: why a
// hook asks, why plan mode asks, the tool's detail (Bash: the whole
// command), and for an edit the diff it would make, computed without
// writing.
func (r *runner) permissionContent(ctx context.Context, t tools.Tool, env *tools.Env, input json.RawMessage, desc tools.Description, pre hooks.Decision, userOnly bool) []acp.ToolCallContent {
	var out []acp.ToolCallContent
	if pre.Permission == hooks.Ask && pre.Reason != "" {
		// Claude Code shows why a hook wants the user asked; so does cordis.
		out = append(out, acp.ContentText("A hook asks you to confirm: "+pre.Reason))
	}
	if userOnly {
		out = append(out, acp.ContentText("Plan mode: cordis cannot tell whether this MCP tool changes anything (its server's readOnlyHint is not taken on trust), so it runs only if you allow this call."))
	}
	if desc.Detail != "" {
		out = append(out, acp.ContentText(desc.Detail))
	}
	if p, ok := t.(tools.Previewer); ok {
		for _, d := range p.Preview(ctx, env, input) {
			out = append(out, acp.DiffContent(d.Path, d.OldText, d.NewText))
		}
	}
	return out
}

// alwaysAnswers are the rules of a session's "always allow" and "always
// reject" answers (Bash(npm test:*)), under their own lock.
type alwaysAnswers struct {
	mu     sync.Mutex
	allow  map[string]bool
	reject map[string]bool
}

// remember adds rule to the allowed (allow) or rejected rules.
func (a *alwaysAnswers) remember(rule string, allow bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := &a.reject
	if allow {
		m = &a.allow
	}
	if *m == nil {
		*m = map[string]bool{}
	}
	(*m)[rule] = true
}

// match returns the remembered allow and reject rules that cover call
// ("" for none).
func (a *alwaysAnswers) match(call permrules.Call, cwd string) (allowed, rejected string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return rememberedRule(a.allow, call, cwd, true), rememberedRule(a.reject, call, cwd, false)
}

// rememberedRule returns the first rule of the session's "always" answers
// that covers the call (an allow rule the whole call, a reject rule any
// part of it), or "".
func rememberedRule(rules map[string]bool, call permrules.Call, cwd string, allow bool) string {
	if len(rules) == 0 {
		return ""
	}
	parsed := make([]permrules.Rule, 0, len(rules))
	for _, text := range slices.Sorted(maps.Keys(rules)) {
		if r, err := permrules.Parse(text, cwd); err == nil {
			parsed = append(parsed, r)
		}
	}
	var (
		r  permrules.Rule
		ok bool
	)
	if allow {
		r, ok = permrules.Matcher{}.Permits(parsed, call)
	} else {
		r, ok = permrules.Matcher{}.Restricts(parsed, call)
	}
	if !ok {
		return ""
	}
	return r.Text
}

// Answers to ExitPlanMode's question, as claude-agent-acp offers them: the
// option id is the mode to switch to.
var exitPlanOptions = []acp.PermissionOption{
	{OptionID: ModeAcceptEdits, Name: "Yes, and auto-accept edits", Kind: acp.PermAllowAlways},
	{OptionID: ModeDefault, Name: "Yes, and manually approve edits", Kind: acp.PermAllowOnce},
	{OptionID: ModePlan, Name: "No, keep planning", Kind: acp.PermRejectOnce},
}

// exitPlan asks the user to approve the plan and leave plan mode (the
// ExitPlanMode tool). The request shows the plan (the tool's, else what
// the model wrote before the call); an approval switches the mode and
// tells the editor both ways it shows it (current_mode_update and
// config_option_update), and the turn goes on in the new mode: the next
// permission check reads it. Anything but a known approval keeps plan
// mode.
func (r *runner) exitPlan(ctx context.Context, toolCallID, plan string) (tools.PlanDecision, error) {
	s := r.s
	plan = cmp.Or(plan, strings.TrimSpace(r.lastText), "(The model gave no plan.)")
	resp, err := s.requestPermission(ctx, &acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall: acp.ToolCallUpdate{ToolCallID: toolCallID, Title: "Ready to code?", Kind: acp.ToolKindSwitchMode,
			Status: acp.ToolStatusPending, Content: []acp.ToolCallContent{acp.ContentText(plan)}},
		Options: exitPlanOptions,
	})
	if err != nil {
		return tools.PlanDecision{}, err
	}
	mode := resp.Outcome.OptionID
	if resp.Outcome.Outcome != "selected" || (mode != ModeAcceptEdits && mode != ModeDefault) {
		return tools.PlanDecision{}, nil
	}
	if err := s.setMode(mode); err != nil {
		return tools.PlanDecision{}, err
	}
	s.notify(ctx, acp.CurrentModeUpdate{CurrentModeID: mode})
	s.notify(ctx, acp.ConfigOptionUpdate{ConfigOptions: s.configOptions()})
	return tools.PlanDecision{Approved: true, Mode: mode}, nil
}
