package codex

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/hooks"
)

// outcome is what one hook run said, in Codex's terms. A run with a
// failure (it timed out, exited non-zero other than a valid exit 2,
// printed invalid or unsupported output) says nothing else: Codex reports
// it as Failed and goes on as if the hook had not run (fail-open).
type outcome struct {
	failure string

	// block: PreToolUse deny, PermissionRequest deny, UserPromptSubmit
	// block, Stop/SubagentStop continue, PostToolUse result replacement.
	block  bool
	reason string
	// allow: PreToolUse allow with updatedInput, PermissionRequest allow.
	allow        bool
	updatedInput json.RawMessage

	context       []string
	systemMessage string
	// stop is `continue: false`.
	stop       bool
	stopReason string
}

func failed(format string, args ...any) outcome {
	return outcome{failure: fmt.Sprintf(format, args...)}
}

// output is a hook's stdout JSON. Pointers tell "absent" from "zero".
type output struct {
	Continue           *bool     `json:"continue"`
	StopReason         *string   `json:"stopReason"`
	SuppressOutput     *bool     `json:"suppressOutput"`
	SystemMessage      *string   `json:"systemMessage"`
	Decision           *string   `json:"decision"`
	Reason             *string   `json:"reason"`
	HookSpecificOutput *specific `json:"hookSpecificOutput"`
}

type specific struct {
	HookEventName            *string             `json:"hookEventName"`
	AdditionalContext        *string             `json:"additionalContext"`
	PermissionDecision       *string             `json:"permissionDecision"`
	PermissionDecisionReason *string             `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage     `json:"updatedInput"`
	UpdatedMCPToolOutput     json.RawMessage     `json:"updatedMCPToolOutput"`
	Decision                 *permissionDecision `json:"decision"`
}

type permissionDecision struct {
	Behavior           string          `json:"behavior"`
	Message            *string         `json:"message"`
	UpdatedInput       json.RawMessage `json:"updatedInput"`
	UpdatedPermissions json.RawMessage `json:"updatedPermissions"`
	Interrupt          *bool           `json:"interrupt"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// contextEvent reports an event whose plain-text stdout is developer
// context.
func contextEvent(event string) bool {
	return event == evSessionStart || event == evUserPromptSubmit || event == evSubagentStart
}

// stopEvent: plain text is invalid (Codex wants JSON on Stop,
// SubagentStop and Interrupt).
func stopEvent(event string) bool {
	return event == evStop || event == evSubagentStop || event == evInterrupt
}

// interpret applies Codex's rules to one finished run of a hook on event.
//
//   - A run that did not exit by itself (timeout, cancellation, signal,
//     could not start) failed.
//   - Exit 2 blocks (or, on Stop, continues) with stderr as the reason,
//     only when stderr is not empty; stdout is ignored. Exit 2 with empty
//     stderr, or on an event that cannot block, failed.
//   - Any other non-zero exit failed, whatever stdout says.
//   - Exit 0: empty stdout has no effect; stdout that starts with '{' or
//     '[' must be a valid JSON object; other text is developer context on
//     SessionStart, UserPromptSubmit and SubagentStart, invalid on Stop and
//     SubagentStop, and ignored elsewhere.
func interpret(event string, r hookproc.Result) outcome {
	if !r.Exited() {
		return failed("%s", r.Failure())
	}
	stderr := strings.TrimSpace(r.Stderr)
	switch r.ExitCode {
	case 0:
	case 2:
		if stderr == "" {
			return failed("exit code 2 with empty stderr (Codex blocks only with a reason on stderr)")
		}
		switch event {
		case evPreToolUse, evPermissionRequest, evPostToolUse, evUserPromptSubmit, evStop, evSubagentStop:
			return outcome{block: true, reason: stderr}
		}
		return failed("exit code 2 cannot block %s: %s", event, clip(stderr))
	default:
		msg := fmt.Sprintf("exit code %d", r.ExitCode)
		if stderr != "" {
			msg += ": " + clip(stderr)
		}
		return failed("%s", msg)
	}
	stdout := strings.TrimSpace(r.Stdout)
	if r.StdoutOmitted > 0 {
		return failed("stdout exceeded %d bytes", len(r.Stdout))
	}
	if stdout == "" {
		return outcome{}
	}
	if stdout[0] != '{' && stdout[0] != '[' {
		switch {
		case contextEvent(event):
			return outcome{context: []string{stdout}}
		case stopEvent(event):
			return failed("invalid %s hook output: plain text where JSON is required: %s", event, clip(stdout))
		}
		return outcome{}
	}
	if stdout[0] == '[' {
		return failed("invalid JSON output: not an object: %s", clip(stdout))
	}
	var out output
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&out); err != nil {
		return failed("invalid JSON output: %v: %s", err, clip(stdout))
	}
	if dec.More() {
		return failed("invalid JSON output: more than one JSON value: %s", clip(stdout))
	}
	return decide(event, &out)
}

// decide applies the per-event output rules to a parsed JSON object.
func decide(event string, out *output) outcome {
	hso := out.HookSpecificOutput
	if hso != nil && hso.HookEventName != nil && *hso.HookEventName != event {
		return failed("hookSpecificOutput.hookEventName is %q on a %s hook", *hso.HookEventName, event)
	}
	if hso != nil && hso.HookEventName == nil {
		return failed("hookSpecificOutput needs \"hookEventName\": %q", event)
	}
	r := &reading{event: event, out: out, hso: hso, o: outcome{systemMessage: str(out.SystemMessage)}}
	if out.Continue != nil && !*out.Continue {
		r.o.stop, r.o.stopReason = true, str(out.StopReason)
	}
	switch event {
	case evPreToolUse:
		return r.preToolUse()
	case evPermissionRequest:
		return r.permissionRequest()
	case evPostToolUse:
		return r.postToolUse()
	case evUserPromptSubmit:
		if f := r.checkBlock(); f != nil {
			return *f
		}
		r.addContext()
	case evStop, evSubagentStop:
		if hso != nil {
			return failed("hookSpecificOutput is not supported on %s", event)
		}
		if f := r.checkBlock(); f != nil {
			return *f
		}
	case evSessionStart, evSubagentStart:
		if f := r.noDecision(); f != nil {
			return *f
		}
		r.addContext()
	case evPreCompact:
		if f := r.noDecision(); f != nil {
			return *f
		}
		if r.o.stop {
			r.o.block, r.o.reason = true, r.o.stopReason
		}
	case evPostCompact:
		// `continue: false` stops after compaction (the turn ends); the
		// rest only observes.
		if f := r.noDecision(); f != nil {
			return *f
		}
	case evSessionEnd, evInterrupt:
		// Advisory: only systemMessage is used.
		return outcome{systemMessage: r.o.systemMessage}
	}
	return r.o
}

// reading is one JSON output being read for event into o.
type reading struct {
	event string
	out   *output
	hso   *specific
	o     outcome
}

// checkBlock reads decision "block", the only decision Codex knows, which
// needs a reason (everywhere a decision is accepted); a non-nil result is
// the failure.
func (r *reading) checkBlock() *outcome {
	out, event := r.out, r.event
	decision, reason := str(out.Decision), strings.TrimSpace(str(out.Reason))
	var f outcome
	switch {
	case out.Decision == nil && out.Reason != nil && (event == evPreToolUse || event == evPostToolUse):
		f = failed("\"reason\" without \"decision\"")
	case out.Decision == nil:
		return nil
	case decision == "approve":
		f = failed("decision \"approve\" is not supported (legacy Claude form)")
	case decision != "block":
		f = failed("unsupported decision %q (Codex accepts only \"block\")", decision)
	case reason == "":
		f = failed("decision \"block\" needs a non-empty \"reason\"")
	default:
		r.o.block, r.o.reason = true, reason
		return nil
	}
	return &f
}

// noDecision fails an output with a decision on an event that has none.
func (r *reading) noDecision() *outcome {
	if r.out.Decision != nil {
		f := failed("\"decision\" is not supported on %s", r.event)
		return &f
	}
	return nil
}

func (r *reading) addContext() {
	if r.hso != nil && r.hso.AdditionalContext != nil && strings.TrimSpace(*r.hso.AdditionalContext) != "" {
		r.o.context = append(r.o.context, *r.hso.AdditionalContext)
	}
}

func (r *reading) preToolUse() outcome {
	out, hso := r.out, r.hso
	switch {
	case out.Continue != nil && !*out.Continue:
		return failed("\"continue\": false is not supported on PreToolUse")
	case out.StopReason != nil:
		return failed("\"stopReason\" is not supported on PreToolUse")
	case out.SuppressOutput != nil && *out.SuppressOutput:
		return failed("\"suppressOutput\" is not supported on PreToolUse")
	}
	if f := r.checkBlock(); f != nil {
		return *f
	}
	if hso != nil {
		pd, pdr := str(hso.PermissionDecision), strings.TrimSpace(str(hso.PermissionDecisionReason))
		switch {
		case hso.PermissionDecision == nil && len(hso.UpdatedInput) > 0:
			return failed("\"updatedInput\" without permissionDecision \"allow\"")
		case hso.PermissionDecision == nil:
		case pd == "deny" && pdr == "":
			return failed("permissionDecision \"deny\" needs a non-empty permissionDecisionReason")
		case pd == "deny":
			r.o.block, r.o.reason = true, cmp.Or(r.o.reason, pdr)
		case pd == "allow" && len(hso.UpdatedInput) == 0:
			return failed("unsupported permissionDecision \"allow\" without \"updatedInput\"")
		case pd == "allow":
			r.o.allow, r.o.updatedInput = true, hso.UpdatedInput
		case pd == "ask" || pd == "defer":
			return failed("unsupported permissionDecision %q", pd)
		default:
			return failed("unknown permissionDecision %q", pd)
		}
		if r.o.block && r.o.allow {
			r.o.allow, r.o.updatedInput = false, nil // a block wins
		}
	}
	r.addContext()
	return r.o
}

func (r *reading) permissionRequest() outcome {
	if f := r.noDecision(); f != nil {
		return *f
	}
	if r.o.stop {
		r.o.block, r.o.reason = true, cmp.Or(r.o.stopReason, "A hook stopped the turn.")
	}
	if r.hso == nil || r.hso.Decision == nil {
		return r.o
	}
	d := r.hso.Decision
	switch {
	case len(d.UpdatedInput) > 0:
		return failed("decision.updatedInput is not supported on PermissionRequest")
	case len(d.UpdatedPermissions) > 0:
		return failed("decision.updatedPermissions is not supported on PermissionRequest")
	case d.Interrupt != nil && *d.Interrupt:
		return failed("decision.interrupt is not supported on PermissionRequest")
	}
	switch d.Behavior {
	case "allow":
		if !r.o.block {
			r.o.allow = true
		}
	case "deny":
		r.o.block, r.o.reason = true, cmp.Or(r.o.reason, strings.TrimSpace(str(d.Message)))
	default:
		return failed("unknown decision.behavior %q (want \"allow\" or \"deny\")", d.Behavior)
	}
	return r.o
}

func (r *reading) postToolUse() outcome {
	switch {
	case r.out.SuppressOutput != nil && *r.out.SuppressOutput:
		return failed("\"suppressOutput\" is not supported on PostToolUse")
	case r.hso != nil && len(r.hso.UpdatedMCPToolOutput) > 0:
		return failed("\"updatedMCPToolOutput\" is not supported")
	}
	if f := r.checkBlock(); f != nil {
		return *f
	}
	if r.o.stop && !r.o.block {
		// continue:false also replaces the result.
		r.o.block, r.o.reason = true, cmp.Or(strings.TrimSpace(r.o.stopReason), "A PostToolUse hook stopped processing of this result.")
	}
	r.addContext()
	return r.o
}

// clip shortens hook output quoted in a message.
func clip(s string) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// merge folds the outcomes of one event's runs, in configuration order,
// into the Decision the loop honours, with Codex's aggregation rules:
//
//   - PreToolUse: any deny wins, with the first deny's reason; otherwise
//     the last allow (with its updated input) in configuration order.
//   - PermissionRequest: any deny wins (first message); otherwise an allow
//     lets the call run; no decision leaves the normal approval prompt.
//   - PostToolUse: the tool result is replaced by the feedback (several
//     feedbacks joined with blank lines).
//   - UserPromptSubmit: any block rejects the prompt (first reason).
//   - Stop / SubagentStop: any block continues the turn; the reasons are
//     joined with blank lines into one continuation prompt.
//   - PreCompact: `continue: false` blocks compaction; PostCompact: it
//     ends the turn after the compaction (as everywhere).
//   - Any `continue: false` wins: the turn stops (and a Stop block is
//     dropped), with the first stopReason.
//   - SessionStart context is system-side context (the system prompt of
//     the session's requests); every other event's additionalContext is
//     added to what the model reads next. Contexts and systemMessages
//     keep configuration order.
//
// Failed runs contribute nothing.
func merge(event string, outs []outcome) hooks.Decision {
	var d hooks.Decision
	var reasons []string
	var allowed bool
	var updated json.RawMessage
	for _, o := range outs {
		if o.failure != "" {
			continue
		}
		if o.stop {
			d.StopTurn = true
			d.StopReason = cmp.Or(d.StopReason, strings.TrimSpace(o.stopReason))
		}
		if o.block {
			reasons = append(reasons, o.reason)
		}
		if o.allow {
			allowed = true
			if o.updatedInput != nil {
				updated = o.updatedInput
			}
		}
		if event == evSessionStart {
			d.SystemContext = append(d.SystemContext, o.context...)
		} else {
			d.AdditionalContext = append(d.AdditionalContext, o.context...)
		}
		if m := strings.TrimSpace(o.systemMessage); m != "" {
			d.SystemMessages = append(d.SystemMessages, m)
		}
	}
	switch event {
	case evPreToolUse, evPermissionRequest:
		switch {
		case len(reasons) > 0:
			d.Permission, d.Reason = hooks.Deny, cmp.Or(reasons...)
		case allowed:
			d.Permission, d.UpdatedInput = hooks.Allow, updated
		}
	case evPostToolUse:
		if len(reasons) > 0 {
			text := strings.Join(reasons, "\n\n")
			d.ReplaceResult = &text
		}
	case evUserPromptSubmit, evPreCompact:
		if len(reasons) > 0 {
			d.Block, d.Reason = true, cmp.Or(reasons...)
		}
	case evStop, evSubagentStop:
		if len(reasons) > 0 && !d.StopTurn {
			d.Block, d.Reason = true, strings.Join(reasons, "\n\n")
		}
	}
	return d
}
