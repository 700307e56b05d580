# SessionStart (compact): fixed context for the conversation that follows the summary.
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "The conversation was compacted; notes.md is the source of truth for the release."}}
JSON
