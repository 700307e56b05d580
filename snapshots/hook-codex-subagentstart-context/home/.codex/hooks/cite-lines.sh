# SubagentStart (general-purpose): keep the input it was given in the
# workspace, then add a fixed instruction for the subagent.
cat > "$PWD/subagent-start.json"
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "Cite the line number of every fact you report."}}
JSON
