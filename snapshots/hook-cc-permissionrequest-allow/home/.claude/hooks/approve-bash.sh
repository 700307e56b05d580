# PermissionRequest (Bash): keep the input it was given in the workspace,
# then approve the call on the user's behalf.
cat > "$CLAUDE_PROJECT_DIR/permission-request.json"
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}
JSON
