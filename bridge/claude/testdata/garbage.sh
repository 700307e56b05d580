#!/bin/sh
# Exit 0 with stdout that starts like JSON but is not.
cat >/dev/null
printf '{garbage: "not json"\n'
