# UserPromptSubmit: add a fixed fact to the model's context.
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "The on-call engineer this week is Dana."}}
JSON
