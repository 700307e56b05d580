# SessionEnd: keep the input it was given in the workspace, and count the
# transcript's lines (the transcript exists and is complete when the
# session ends).
input=$(cat)
printf '%s\n' "$input" > "$CLAUDE_PROJECT_DIR/session-end.json"
transcript=$(printf '%s' "$input" | sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p')
if [ -f "$transcript" ]; then
  grep -c '"type":"assistant"' "$transcript" > "$CLAUDE_PROJECT_DIR/assistant-messages.txt"
fi
