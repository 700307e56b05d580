# PostCompact (manual): keep the input it was given in the workspace.
cat > "$PWD/codex-post-compact.json"
