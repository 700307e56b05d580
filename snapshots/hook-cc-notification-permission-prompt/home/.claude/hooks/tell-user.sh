# Notification (permission_prompt): what a desktop notifier would show is
# kept in the workspace instead; written under another name and renamed, so
# that the file appears complete.
cat > "$CLAUDE_PROJECT_DIR/.notification.tmp"
mv "$CLAUDE_PROJECT_DIR/.notification.tmp" "$CLAUDE_PROJECT_DIR/notification.json"
