#!/bin/sh
# Exit 0 with the fixed JSON output of the event named by $1.
cat >/dev/null
cat "$(dirname "$0")/json/$1.json"
