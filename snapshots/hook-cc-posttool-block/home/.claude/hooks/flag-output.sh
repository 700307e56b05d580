# PostToolUse (Bash): block once with fixed feedback.
if [ -f "$PWD/.posttool_fired" ]; then exit 0; fi
: > "$PWD/.posttool_fired"
cat <<'JSON'
{"decision": "block", "reason": "The status output must be checked by a human before it is reported."}
JSON
