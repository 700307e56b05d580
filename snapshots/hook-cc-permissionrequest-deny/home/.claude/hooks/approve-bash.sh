# PermissionRequest (Bash): keep the input it was given in the workspace,
# then refuse the call on the user's behalf, with a message for the model.
cat > "$CLAUDE_PROJECT_DIR/permission-request.json"
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "Deployments run from CI only; tell the user to push a tag instead."}}}
JSON
