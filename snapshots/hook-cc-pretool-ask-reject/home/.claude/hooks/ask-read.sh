# PreToolUse (Read): always ask the user, with a fixed reason.
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "Reading files here needs the user's approval."}}
JSON
