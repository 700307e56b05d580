#!/bin/sh
# capture.sh FILE [OUTPUT]: writes its stdin (the hook input), then a line
# with its working directory, to FILE, and prints OUTPUT (default nothing).
cat > "$1"
printf '\n%s\n' "$(pwd)" >> "$1"
[ -n "$2" ] && printf '%s\n' "$2"
exit 0
