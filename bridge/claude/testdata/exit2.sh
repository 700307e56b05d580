#!/bin/sh
# Exit 2 with a reason on stderr.
cat >/dev/null
echo "blocked by stderr" >&2
exit 2
