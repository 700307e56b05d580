#!/bin/sh
# Exit 1: a non-blocking error.
cat >/dev/null
echo "something broke" >&2
exit 1
