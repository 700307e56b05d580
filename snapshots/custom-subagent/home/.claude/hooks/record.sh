# Keeps the hook's input in the workspace under the name given, written
# under another name and renamed, so that the file appears complete.
cat > "$CLAUDE_PROJECT_DIR/.$1.tmp"
mv "$CLAUDE_PROJECT_DIR/.$1.tmp" "$CLAUDE_PROJECT_DIR/$1"
