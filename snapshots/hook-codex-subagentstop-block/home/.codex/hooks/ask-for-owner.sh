# SubagentStop (general-purpose): block once with a fixed reason; keep
# each input it was given in the workspace (the second one says
# stop_hook_active).
input=$(cat)
if [ -f "$PWD/subagent-stop-1.json" ]; then
  printf '%s\n' "$input" > "$PWD/subagent-stop-2.json"
  exit 0
fi
printf '%s\n' "$input" > "$PWD/subagent-stop-1.json"
cat <<'JSON'
{"decision": "block", "reason": "Also say who owns the release, or that notes.txt does not say."}
JSON
