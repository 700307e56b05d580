# UserPromptSubmit: refuse every prompt with a fixed reason (Codex: exit 2,
# the reason on stderr).
echo "Prompts about deploy keys are blocked by policy." >&2
exit 2
