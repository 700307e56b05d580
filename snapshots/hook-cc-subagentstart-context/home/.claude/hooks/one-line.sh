# SubagentStart: add a fixed instruction for subagents.
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "Subagents answer in a single line."}}
JSON
