# PreToolUse (Bash): block with a fixed reason (Codex: exit 2, stderr).
echo "Network commands are not allowed in this repository." >&2
exit 2
