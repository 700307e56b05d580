# PreToolUse (Bash): allow, with a fixed note.
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "Commands are logged.", "additionalContext": "claude-hooks: every command is logged."}}
JSON
