# Stop: block once with a fixed reason.
if [ -f "$PWD/.stop_fired" ]; then exit 0; fi
: > "$PWD/.stop_fired"
cat <<'JSON'
{"decision": "block", "reason": "Before you stop, name the first file you would change."}
JSON
