#!/usr/bin/env bash
# The database servers the JDBC tests and benchmarks run: MariaDB and PostgreSQL from Debian's
# packages. Installs what is missing (as root, or through sudo without a password); prints the
# command to run otherwise. Nothing is started here: each test run starts its own servers.
set -euo pipefail

missing=()
command -v mariadbd >/dev/null 2>&1 || test -x /usr/sbin/mariadbd || missing+=(mariadb-server)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || command -v initdb >/dev/null 2>&1 \
  || missing+=(postgresql)
command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "error: the JDBC tests need ${missing[*]}: run sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "Installing ${missing[*]} from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
  || { "${sudo[@]}" apt-get update -q >/dev/null \
       && "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
