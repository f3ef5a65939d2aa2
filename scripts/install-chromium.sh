#!/usr/bin/env bash
# The browser the web console tests drive: Chromium from Debian's `chromium` package, run
# headless by Playwright for Python (never `playwright install`: it downloads browsers from a
# CDN). Installs it when missing.
set -euo pipefail

command -v chromium >/dev/null 2>&1 && exit 0
test -x /usr/bin/chromium && exit 0
exec bash "$(dirname "$0")/apt-install.sh" "the web console tests" chromium fonts-dejavu-core
