# PostToolUse (Bash): add a fixed note for the model.
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "Note: this status check only covers the main module."}}
JSON
