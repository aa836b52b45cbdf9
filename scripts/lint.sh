#!/usr/bin/env bash
# npm run lint: ESLint over every JS file (eslint.config.js), and clang-format
# over every C file under c/ (.clang-format), as a check that changes nothing.
# To fix what clang-format reports: clang-format -i FILE. Prints one line per
# check, then "lint: N passed, M failed"; exits non-zero on any failure.
# Installs clang-format from Debian when missing and running as root.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/install.sh
have clang-format || install_package clang-format
[ -x node_modules/.bin/eslint ] || npm ci --no-audit --no-fund --loglevel=error

passed=0
failed=0
check() { # check NAME COMMAND...
  local name=$1
  shift
  if "$@"; then
    echo "ok - $name"
    passed=$((passed + 1))
  else
    echo "not ok - $name"
    failed=$((failed + 1))
  fi
}

check "ESLint: every JS file" node_modules/.bin/eslint --max-warnings=0 .
mapfile -t c_files < <(find c -name '*.[ch]' | sort)
check "clang-format: ${#c_files[@]} files under c/ (fix: clang-format -i FILE)" \
  clang-format --dry-run -Werror "${c_files[@]}"

echo "lint: $passed passed, $failed failed"
[ "$failed" = 0 ]
