# PreToolUse (Bash): deny with a fixed reason.
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "Network commands are not allowed in this repository."}}
JSON
