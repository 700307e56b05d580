# PostCompact (manual): keep the input it was given in the workspace, and
# tell the user (exit 2: stderr is shown to the user only).
cat > "$PWD/claude-post-compact.json"
echo "Compaction noted for the audit log." >&2
exit 2
