# SubagentStop: block once with a fixed reason.
if [ -f "$PWD/.subagent_stop_fired" ]; then exit 0; fi
: > "$PWD/.subagent_stop_fired"
cat <<'JSON'
{"decision": "block", "reason": "Also report how many lines the file has."}
JSON
