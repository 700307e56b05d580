#!/bin/sh
# The project's smoke test, stood in for.
echo smoke ok
