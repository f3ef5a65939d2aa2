#!/usr/bin/env bash
# The browser the web console tests drive: Chromium from Debian's `chromium` package, run
# headless by Playwright for Python (never `playwright install`: it downloads browsers from a
# CDN). Installs it when missing (as root, or through sudo without a password); prints the
# command to run otherwise.
set -euo pipefail

command -v chromium >/dev/null 2>&1 && exit 0
test -x /usr/bin/chromium && exit 0

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "error: the web console tests need Chromium: run sudo apt-get install chromium" >&2
  exit 1
fi
echo "Installing chromium from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core >/dev/null \
  || { "${sudo[@]}" apt-get update -q >/dev/null \
       && "${sudo[@]}" apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core \
          >/dev/null; }
