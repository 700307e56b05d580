#!/bin/sh
# Dies of SIGKILL.
echo '{"decision":"block","reason":"never used"}'
kill -9 $$
