#!/usr/bin/env bash
# The database servers the JDBC tests and benchmarks run: MariaDB and PostgreSQL from Debian's
# packages. Installs what is missing (scripts/apt-install.sh). Nothing is started here: each
# test run starts its own servers.
set -euo pipefail

missing=()
command -v mariadbd >/dev/null 2>&1 || test -x /usr/sbin/mariadbd || missing+=(mariadb-server)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || command -v initdb >/dev/null 2>&1 \
  || missing+=(postgresql)
command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
[ ${#missing[@]} -eq 0 ] && exit 0

exec bash "$(dirname "$0")/apt-install.sh" "the JDBC tests" "${missing[@]}"
