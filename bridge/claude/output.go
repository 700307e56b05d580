package claude

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/hooks"
)

// maxText caps every string a hook hands to the model or the user, as
// Claude Code caps hook output strings at 10,000 characters.
const maxText = 10000

// Permission ranks: the merged verdict is the highest (CC-REF: deny >
// defer > ask > allow).
const (
	rankNone = iota
	rankAllow
	rankAsk
	rankDefer
	rankDeny
)

// verdict is what one hook command contributed.
type verdict struct {
	d    hooks.Decision
	rank int
	// err is a non-blocking error: the command failed, or its output was
	// unusable. Part of d may still apply (an exit 2 block).
	err error
}

// output is Claude Code's JSON hook output (CC-REF "JSON output").
type output struct {
	Continue       *bool           `json:"continue"`
	StopReason     string          `json:"stopReason"`
	SystemMessage  string          `json:"systemMessage"`
	SuppressOutput bool            `json:"suppressOutput"`
	Decision       string          `json:"decision"`
	Reason         string          `json:"reason"`
	Specific       json.RawMessage `json:"hookSpecificOutput"`

	spec *specific
}

type specific struct {
	HookEventName            string             `json:"hookEventName"`
	PermissionDecision       string             `json:"permissionDecision"`
	PermissionDecisionReason string             `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage    `json:"updatedInput"`
	AdditionalContext        string             `json:"additionalContext"`
	Decision                 *permissionOutcome `json:"decision"`
	UpdatedMCPToolOutput     json.RawMessage    `json:"updatedMCPToolOutput"`
	UpdatedToolOutput        json.RawMessage    `json:"updatedToolOutput"`
}

// permissionOutcome is PermissionRequest's hookSpecificOutput.decision.
type permissionOutcome struct {
	Behavior           string             `json:"behavior"`
	UpdatedInput       json.RawMessage    `json:"updatedInput"`
	UpdatedPermissions []permissionUpdate `json:"updatedPermissions"`
	Message            string             `json:"message"`
	Interrupt          bool               `json:"interrupt"`
}

// parseOutput decodes stdout that starts with '{'. syntaxErr means it is
// not JSON (Claude Code then treats it as plain text); schemaErr means it
// is JSON that does not fit the output schema (a non-blocking error).
func parseOutput(ev hooks.Event, stdout string) (out *output, syntaxErr, schemaErr error) {
	if !json.Valid([]byte(stdout)) {
		return nil, fmt.Errorf("stdout starts with '{' but is not valid JSON"), nil
	}
	var o output
	if err := json.Unmarshal([]byte(stdout), &o); err != nil {
		return nil, nil, fmt.Errorf("JSON output does not fit Claude Code's schema: %v", err)
	}
	if len(o.Specific) > 0 && string(o.Specific) != "null" {
		var s specific
		if err := json.Unmarshal(o.Specific, &s); err != nil {
			return nil, nil, fmt.Errorf("hookSpecificOutput does not fit Claude Code's schema: %v", err)
		}
		if s.HookEventName != string(ev) {
			return nil, nil, fmt.Errorf("hookSpecificOutput.hookEventName is %q, want %q", s.HookEventName, ev)
		}
		o.spec = &s
	}
	if err := o.validate(ev); err != nil {
		return nil, nil, err
	}
	return &o, nil, nil
}

func (o *output) validate(ev hooks.Event) error {
	switch o.Decision {
	case "", "approve", "block":
	default:
		return fmt.Errorf("decision must be \"approve\" or \"block\", got %q", o.Decision)
	}
	if ev == hooks.Stop || ev == hooks.SubagentStop {
		if o.Decision == "block" && strings.TrimSpace(o.Reason) == "" {
			return fmt.Errorf("decision \"block\" on %s needs a reason (it is the model's instruction to continue)", ev)
		}
	}
	s := o.spec
	if s == nil {
		return nil
	}
	switch s.PermissionDecision {
	case "", "allow", "deny", "ask", "defer":
	default:
		return fmt.Errorf("permissionDecision must be allow, deny, ask or defer, got %q", s.PermissionDecision)
	}
	if len(s.UpdatedInput) > 0 && !isObject(s.UpdatedInput) {
		return fmt.Errorf("updatedInput must be an object")
	}
	if d := s.Decision; d != nil {
		switch d.Behavior {
		case "allow", "deny":
		default:
			return fmt.Errorf("decision.behavior must be allow or deny, got %q", d.Behavior)
		}
		if len(d.UpdatedInput) > 0 && !isObject(d.UpdatedInput) {
			return fmt.Errorf("decision.updatedInput must be an object")
		}
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// translate turns one command's result into its verdict, after Claude
// Code's current semantics (reference §6, §7, §10).
func translate(ev hooks.Event, in *hooks.Input, res hookproc.Result) verdict {
	var v verdict
	if !res.Exited() {
		v.err = fmt.Errorf("%s", res.Failure())
		return v
	}
	if res.ExitCode > 128 && res.ExitCode < 128+32 {
		// The shell reports a command killed by signal N as 128+N: a
		// crash, whatever it printed before dying, not a verdict.
		v.err = fmt.Errorf("killed by signal %d (exit status %d)", res.ExitCode-128, res.ExitCode)
		return v
	}
	var (
		out                  *output
		syntaxErr, schemaErr error
	)
	trimmed := strings.TrimSpace(res.Stdout)
	if strings.HasPrefix(trimmed, "{") {
		out, syntaxErr, schemaErr = parseOutput(ev, trimmed)
	}
	switch res.ExitCode {
	case 0:
		switch {
		case out != nil:
			v.apply(ev, in, out)
		case schemaErr != nil:
			v.err = schemaErr
		default:
			// Plain text (or text that only looked like JSON).
			if trimmed != "" && (ev == hooks.UserPromptSubmit || ev == hooks.SessionStart) {
				v.d.AdditionalContext = append(v.d.AdditionalContext, capText(trimmed))
			}
			_ = syntaxErr
		}
	case 2:
		reason := ""
		if out != nil {
			v.apply(ev, in, out)
			reason = out.blockingReason()
		}
		v.block(ev, capText(cmp.Or(reason, strings.TrimSpace(res.Stderr))), strings.TrimSpace(res.Stderr))
	default:
		if out != nil {
			// CC 2026: a schema-valid JSON object decides; the exit code
			// is ignored.
			v.apply(ev, in, out)
			return v
		}
		msg := exitFailure(res)
		if schemaErr != nil {
			msg += "; " + schemaErr.Error()
		}
		v.err = fmt.Errorf("%s", msg)
	}
	return v
}

// blockingReason is the reason a JSON output gives for blocking.
func (o *output) blockingReason() string {
	if o.spec != nil {
		if o.spec.PermissionDecisionReason != "" {
			return o.spec.PermissionDecisionReason
		}
		if o.spec.Decision != nil && o.spec.Decision.Message != "" {
			return o.spec.Decision.Message
		}
	}
	return o.Reason
}

// block applies exit 2 for ev (reference §6.2). reason is the JSON reason
// or stderr; stderr alone is what "shown to the user" events show.
func (v *verdict) block(ev hooks.Event, reason, stderr string) {
	switch ev {
	case hooks.PreToolUse:
		v.setPermission(rankDeny, reason)
		v.d.UpdatedInput = nil
	case hooks.UserPromptSubmit, hooks.Stop, hooks.SubagentStop, hooks.PostToolUse, hooks.PostToolUseFailure, hooks.PreCompact:
		v.d.Block = true
		v.d.Reason = reason
	case hooks.SessionStart, hooks.SubagentStart, hooks.SessionEnd, hooks.PostCompact:
		if stderr != "" {
			v.d.SystemMessages = append(v.d.SystemMessages, capText(stderr))
		}
	case hooks.PermissionRequest, hooks.Notification:
		// Not honoured (CC current): the flow is unchanged.
	}
}

func (v *verdict) setPermission(rank int, reason string) {
	v.rank = rank
	switch rank {
	case rankAllow:
		v.d.Permission = hooks.Allow
	case rankAsk, rankDefer:
		// defer hands the decision to the client (Claude Code's -p mode
		// returns the call to its caller); in cordis the client is the
		// editor, which is asked. ask is never downgraded.
		v.d.Permission = hooks.Ask
	case rankDeny:
		v.d.Permission = hooks.Deny
	}
	v.d.Reason = capText(reason)
}

// apply honours a schema-valid JSON output for ev.
func (v *verdict) apply(ev hooks.Event, in *hooks.Input, o *output) {
	if o.Continue != nil && !*o.Continue {
		v.d.StopTurn = true
		v.d.StopReason = capText(o.StopReason)
	}
	if o.SystemMessage != "" {
		v.d.SystemMessages = append(v.d.SystemMessages, capText(o.SystemMessage))
	}
	s := o.spec
	if s == nil {
		s = &specific{}
	}
	switch ev {
	case hooks.PreToolUse:
		v.applyPreToolUse(o, s)
	case hooks.PermissionRequest:
		v.applyPermissionRequest(s)
	case hooks.PostToolUse, hooks.PostToolUseFailure:
		v.blockOn(o)
		v.addContext(s)
		if ev == hooks.PostToolUse {
			if r, ok := resultText(s.UpdatedToolOutput); ok {
				v.d.ReplaceResult = &r
			} else if r, ok := resultText(s.UpdatedMCPToolOutput); ok && strings.HasPrefix(in.ToolName, "mcp__") {
				v.d.ReplaceResult = &r
			}
		}
	case hooks.UserPromptSubmit, hooks.PreCompact:
		v.blockOn(o)
		v.addContext(s)
	case hooks.Stop, hooks.SubagentStop:
		// A block, or additionalContext (CC v2.1.163), makes the agent
		// go on with the reason as its instruction.
		var parts []string
		if o.Decision == "block" {
			parts = append(parts, o.Reason)
		}
		if s.AdditionalContext != "" {
			parts = append(parts, s.AdditionalContext)
		}
		if len(parts) > 0 {
			v.d.Block = true
			v.d.Reason = capText(strings.Join(parts, "\n\n"))
		}
	case hooks.SessionStart, hooks.SubagentStart:
		v.addContext(s)
	case hooks.SessionEnd, hooks.Notification, hooks.PostCompact:
		// Observation only.
	}
}

func (v *verdict) addContext(s *specific) {
	if s.AdditionalContext != "" {
		v.d.AdditionalContext = append(v.d.AdditionalContext, capText(s.AdditionalContext))
	}
}

// blockOn honours decision "block".
func (v *verdict) blockOn(o *output) {
	if o.Decision == "block" {
		v.d.Block = true
		v.d.Reason = capText(o.Reason)
	}
}

// applyPreToolUse honours permissionDecision (or the deprecated top-level
// decision), updatedInput and additionalContext.
func (v *verdict) applyPreToolUse(o *output, s *specific) {
	decision, reason := s.PermissionDecision, s.PermissionDecisionReason
	if decision == "" {
		// The deprecated top-level form.
		switch o.Decision {
		case "approve":
			decision, reason = "allow", o.Reason
		case "block":
			decision, reason = "deny", o.Reason
		}
	}
	switch decision {
	case "allow":
		v.setPermission(rankAllow, reason)
	case "ask":
		v.setPermission(rankAsk, reason)
	case "defer":
		v.setPermission(rankDefer, reason)
	case "deny":
		v.setPermission(rankDeny, reason)
	}
	if len(s.UpdatedInput) > 0 && decision != "deny" {
		v.d.UpdatedInput = s.UpdatedInput
	}
	v.addContext(s)
}

// applyPermissionRequest honours hookSpecificOutput.decision.
func (v *verdict) applyPermissionRequest(s *specific) {
	d := s.Decision
	if d == nil {
		return
	}
	switch d.Behavior {
	case "allow":
		v.setPermission(rankAllow, d.Message)
		if len(d.UpdatedInput) > 0 {
			v.d.UpdatedInput = d.UpdatedInput
		}
		v.d.UpdatedPermissions = fromPermissionUpdates(d.UpdatedPermissions)
	case "deny":
		v.setPermission(rankDeny, d.Message)
		if d.Interrupt {
			v.d.StopTurn = true
			v.d.StopReason = cmp.Or(v.d.StopReason, capText(d.Message))
		}
	}
}

// resultText renders an updated tool output: a JSON string as itself,
// anything else as compact JSON.
func resultText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return capText(s), true
	}
	return capText(string(raw)), true
}

// capText keeps the first maxText characters of s and says how many were
// dropped.
func capText(s string) string {
	if utf8.RuneCountInString(s) <= maxText {
		return s
	}
	r := []rune(s)
	return string(r[:maxText]) + fmt.Sprintf("\n[cordis: hook output truncated, %d more characters]", len(r)-maxText)
}

// exitFailure says how a hook that exited failed: its exit status and
// the start of its stderr.
func exitFailure(res hookproc.Result) string {
	msg := fmt.Sprintf("exit status %d", res.ExitCode)
	if s := strings.TrimSpace(res.Stderr); s != "" {
		msg += ": " + summarize(s, 500)
	}
	return msg
}

func summarize(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// merge combines the verdicts of an event's commands in configuration
// order (never completion order): continue:false and blocks from any
// command hold; the permission is the highest ranked (deny > defer > ask
// > allow) with the reasons of the commands that gave it; updated input
// and result are the last given; contexts and messages are concatenated.
func merge(vs []verdict) hooks.Decision {
	var d hooks.Decision
	top := rankNone
	for _, v := range vs {
		top = max(top, v.rank)
	}
	var reasons []string
	addReason := func(r string) {
		if r != "" && !contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	for _, v := range vs {
		x := v.d
		if x.StopTurn {
			d.StopTurn = true
			d.StopReason = cmp.Or(d.StopReason, x.StopReason)
		}
		if top > rankNone && v.rank == top {
			d.Permission = x.Permission
			addReason(x.Reason)
			if top == rankAllow {
				// Only an allow grants permissions: a deny or ask of
				// another command voids them.
				d.UpdatedPermissions = append(d.UpdatedPermissions, x.UpdatedPermissions...)
			}
		}
		if x.Block {
			d.Block = true
			if top == rankNone {
				addReason(x.Reason)
			}
		}
		if x.UpdatedInput != nil {
			d.UpdatedInput = x.UpdatedInput
		}
		if x.ReplaceResult != nil {
			d.ReplaceResult = x.ReplaceResult
		}
		d.AdditionalContext = append(d.AdditionalContext, x.AdditionalContext...)
		d.SystemMessages = append(d.SystemMessages, x.SystemMessages...)
	}
	if top == rankDeny {
		d.UpdatedInput = nil
	}
	d.Reason = strings.Join(reasons, "\n\n")
	return d
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
