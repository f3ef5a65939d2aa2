#!/usr/bin/env bash
# Installs Debian packages for the tests: `apt-install.sh WHY PACKAGE...` (WHY says what needs
# them, for the error). As root, or through sudo without a password; otherwise prints the
# command to run and fails. Updates the package lists only when an install fails without.
set -euo pipefail

why=$1
shift
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "error: $why need $*: run sudo apt-get install $*" >&2
  exit 1
fi
echo "Installing $* from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y -q --no-install-recommends "$@" >/dev/null \
  || { "${sudo[@]}" apt-get update -q >/dev/null \
       && "${sudo[@]}" apt-get install -y -q --no-install-recommends "$@" >/dev/null; }
