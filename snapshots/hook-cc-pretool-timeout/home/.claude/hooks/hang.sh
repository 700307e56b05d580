# PreToolUse (Read): hang until killed.
exec sleep 30
