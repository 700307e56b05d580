#!/bin/sh
# slow.sh SECONDS TEXT: prints a Stop block with reason TEXT after SECONDS.
cat >/dev/null
sleep "$1"
printf '{"decision":"block","reason":"%s"}\n' "$2"
