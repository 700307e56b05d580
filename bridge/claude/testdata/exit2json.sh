#!/bin/sh
# Exit 2 with the event's JSON on stdout and a reason on stderr.
cat >/dev/null
cat "$(dirname "$0")/json/$1.json"
echo "stderr reason" >&2
exit 2
