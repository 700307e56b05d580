# PreToolUse (Bash): deny with a fixed reason.
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "codex-hooks: rm is not allowed."}}
JSON
