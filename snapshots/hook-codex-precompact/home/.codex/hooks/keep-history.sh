# PreCompact (manual): keep the input it was given in the workspace, then
# stop the compaction (Codex: continue false) with a reason.
cat > "$PWD/pre-compact.json"
cat <<'JSON'
{"continue": false, "stopReason": "This session is being audited; keep the full history."}
JSON
