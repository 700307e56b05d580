# Stop: always block with a fixed reason.
cat <<'JSON'
{"decision": "block", "reason": "Keep going."}
JSON
