# SessionStart: add a fixed fact to the session's context.
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "This repository deploys with: make ship"}}
JSON
