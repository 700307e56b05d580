# PostToolUseFailure (Read): keep the input it was given in the workspace,
# then point the model at the file that does exist.
cat > "$CLAUDE_PROJECT_DIR/failure-input.json"
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "This project keeps its settings in settings.toml, not config.yaml."}}
JSON
