package loop

import (
	"context"
	"encoding/json"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop/tools"
)

// verdict is the outcome of the permission flow for one call, as logged.
type verdict struct {
	ToolCallID   string          `json:"toolCallId"`
	Allowed      bool            `json:"allowed"`
	Source       string          `json:"source"` // hook | mode | remembered | permission-hook | user | cancelled | error
	OptionID     string          `json:"optionId,omitempty"`
	Message      string          `json:"message,omitempty"`
	UpdatedInput json.RawMessage `json:"-"`
}

var permissionOptions = []acp.PermissionOption{
	{OptionID: acp.PermAllowOnce, Name: "Allow", Kind: acp.PermAllowOnce},
	{OptionID: acp.PermAllowAlways, Name: "Always allow", Kind: acp.PermAllowAlways},
	{OptionID: acp.PermRejectOnce, Name: "Reject", Kind: acp.PermRejectOnce},
	{OptionID: acp.PermRejectAlways, Name: "Always reject", Kind: acp.PermRejectAlways},
}

// needsApproval says whether mode requires asking before tool runs.
func needsApproval(mode string, t tools.Tool) bool {
	if t.ReadOnly() {
		return false
	}
	switch mode {
	case ModeBypass:
		return false
	case ModeAcceptEdits:
		return t.Kind() != tools.KindEdit
	}
	return true
}

// permit decides whether a call may run. Order: a hook's deny, plan mode,
// remembered rejections, a hook's allow, the mode (a hook's ask forces the
// question), the PermissionRequest seam, then the editor. Anything that
// cannot be answered denies (fail closed).
func (r *runner) permit(ctx context.Context, t tools.Tool, id string, ev toolEvent, input json.RawMessage, pre hooks.Decision) verdict {
	s := r.s
	v := verdict{ToolCallID: id}
	s.mu.Lock()
	mode := s.mode
	remembered, rejected := s.allowAlways[t.Name()], s.rejectAlways[t.Name()]
	s.mu.Unlock()

	switch {
	case pre.Permission == hooks.Deny:
		v.Source, v.Message = "hook", "Denied by a PreToolUse hook: "+firstNonEmpty(pre.Reason, "no reason given")
		return v
	case mode == ModePlan && !t.ReadOnly():
		v.Source, v.Message = "mode", "Plan mode is read-only: "+t.Name()+" is not allowed. Describe the change in your plan instead."
		return v
	case rejected && pre.Permission != hooks.Ask:
		v.Source, v.Message = "remembered", "The user chose to always reject "+t.Name()+" in this session."
		return v
	case pre.Permission == hooks.Allow:
		v.Allowed, v.Source = true, "hook"
		return v
	}
	if pre.Permission != hooks.Ask && (!needsApproval(mode, t) || remembered) {
		v.Allowed, v.Source = true, "mode"
		if remembered {
			v.Source = "remembered"
		}
		return v
	}

	pd := r.hook(ctx, &hooks.Input{Event: hooks.PermissionRequest, ToolName: t.Name(), ToolUseID: id, ToolInput: input})
	switch pd.Permission {
	case hooks.Allow:
		v.Allowed, v.Source, v.UpdatedInput = true, "permission-hook", pd.UpdatedInput
		return v
	case hooks.Deny:
		v.Source, v.Message = "permission-hook", "Denied by a PermissionRequest hook: "+firstNonEmpty(pd.Reason, "no reason given")
		return v
	}

	call := acp.ToolCallUpdate{ToolCallID: id, Title: ev.Title, Kind: ev.Kind, Status: acp.ToolStatusPending, Locations: ev.Locations, RawInput: input}
	if pre.Permission == hooks.Ask && pre.Reason != "" {
		// Claude Code shows why a hook wants the user asked; so does cordis.
		call.Content = []acp.ToolCallContent{acp.ContentText("A hook asks you to confirm: " + pre.Reason)}
	}
	resp, err := s.agent.client.RequestPermission(ctx, &acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall:  call,
		Options:   permissionOptions,
	})
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
	switch resp.Outcome.OptionID {
	case acp.PermAllowOnce:
		v.Allowed = true
	case acp.PermAllowAlways:
		v.Allowed = true
		s.mu.Lock()
		s.allowAlways[t.Name()] = true
		s.mu.Unlock()
	case acp.PermRejectAlways:
		s.mu.Lock()
		s.rejectAlways[t.Name()] = true
		s.mu.Unlock()
		v.Message = "The user rejected " + t.Name() + " for the rest of this session."
	case acp.PermRejectOnce:
		v.Message = "The user rejected this " + t.Name() + " call."
	default:
		v.Message = "The editor answered with an unknown permission option " + resp.Outcome.OptionID + ", so " + t.Name() + " was not run."
	}
	return v
}
