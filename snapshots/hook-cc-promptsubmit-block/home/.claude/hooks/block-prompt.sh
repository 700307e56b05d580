# UserPromptSubmit: refuse every prompt with a fixed reason.
cat <<'JSON'
{"decision": "block", "reason": "Prompts about deploy keys are blocked by policy."}
JSON
