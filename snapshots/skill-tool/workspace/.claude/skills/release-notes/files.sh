# Lists this skill's files, one a line.
ls "$(dirname "$0")"
