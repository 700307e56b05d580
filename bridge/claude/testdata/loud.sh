#!/bin/sh
# Writes 10 MB to stdout and 10 MB to stderr, then exits 0.
cat >/dev/null
head -c 10000000 /dev/zero | tr '\0' x
head -c 10000000 /dev/zero | tr '\0' y >&2
