#!/bin/sh
# Exit 0 with plain text on stdout.
cat >/dev/null
echo "plain text from hook"
