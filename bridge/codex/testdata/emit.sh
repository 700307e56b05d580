#!/bin/sh
# emit.sh FORM [EVENT]: a stand-in for a Codex hook program. It reads its
# stdin (the hook input) and prints the fixed output named FORM, then exits
# with that form's code. EVENT is only echoed back as hookEventName.
cat >/dev/null
ev="${2:-PreToolUse}"
case "$1" in
empty) ;;
text) printf 'plain text from the hook\n' ;;
emptyobj) printf '{}\n' ;;
sysmsg) printf '{"systemMessage":"note for the user"}\n' ;;
continue-false) printf '{"continue":false,"stopReason":"halt now"}\n' ;;
block) printf '{"decision":"block","reason":"blocked because"}\n' ;;
block-noreason) printf '{"decision":"block"}\n' ;;
block-context) printf '{"decision":"block","reason":"blocked because","hookSpecificOutput":{"hookEventName":"%s","additionalContext":"extra context"}}\n' "$ev" ;;
continue-false-block) printf '{"continue":false,"stopReason":"halt now","decision":"block","reason":"blocked because"}\n' ;;
reason-only) printf '{"reason":"a reason alone"}\n' ;;
exit2) printf 'stderr reason\n' >&2; exit 2 ;;
exit2-empty) exit 2 ;;
exit2-json) printf '{"decision":"block","reason":"json reason"}\n'; printf 'stderr reason\n' >&2; exit 2 ;;
exit1-json) printf '{"decision":"block","reason":"json reason"}\n'; exit 1 ;;
exit1-deny) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json deny"}}\n'; exit 1 ;;
exit3) printf 'boom\n' >&2; exit 3 ;;
invalid) printf '{not json\n' ;;
array) printf '[1,2]\n' ;;
context) printf '{"hookSpecificOutput":{"hookEventName":"%s","additionalContext":"extra context"}}\n' "$ev" ;;
context-toplevel) printf '{"additionalContext":"top-level context"}\n' ;;
wrong-event) printf '{"hookSpecificOutput":{"hookEventName":"Other","additionalContext":"x"}}\n' ;;
no-event-name) printf '{"hookSpecificOutput":{"additionalContext":"x"}}\n' ;;
deny) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm please"}}\n' ;;
deny-noreason) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}\n' ;;
allow) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}\n' ;;
allow-updated) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}\n' ;;
allow-updated-nocommand) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"cmd":"ls -la"}}}\n' ;;
updated-only) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls -la"}}}\n' ;;
ask) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}\n' ;;
defer) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}\n' ;;
approve) printf '{"decision":"approve","reason":"fine"}\n' ;;
suppress) printf '{"suppressOutput":true}\n' ;;
stopreason-only) printf '{"stopReason":"why"}\n' ;;
perm-allow) printf '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}\n' ;;
perm-deny) printf '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not today"}}}\n' ;;
perm-updated) printf '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls"}}}}\n' ;;
perm-permissions) printf '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"setMode","mode":"acceptEdits"}]}}}\n' ;;
perm-interrupt) printf '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"stop","interrupt":true}}}\n' ;;
perm-unknown) printf '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"maybe"}}}\n' ;;
mcp-output) printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"x":1}}}\n' ;;
*) printf 'emit.sh: unknown form %s\n' "$1" >&2; exit 64 ;;
esac
exit 0
