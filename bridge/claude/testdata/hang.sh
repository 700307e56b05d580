#!/bin/sh
# Never finishes on its own (killed at its timeout), with a child that
# would keep stdout open.
sleep 30 &
sleep 30
echo "never printed"
