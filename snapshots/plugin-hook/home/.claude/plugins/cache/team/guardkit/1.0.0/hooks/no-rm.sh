# PreToolUse (Bash): deny with a fixed reason; it runs only when found
# through ${CLAUDE_PLUGIN_ROOT}, which must also be in its environment.
[ -f "$CLAUDE_PLUGIN_ROOT/hooks/no-rm.sh" ] || exit 1
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "guardkit: rm -rf is not allowed; move the folder to .trash instead."}}
JSON
