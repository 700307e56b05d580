# PreCompact (manual): a fixed message shown to the user before the summary is written.
cat <<'JSON'
{"systemMessage": "Compacting: the release checklist stays in notes.md."}
JSON
