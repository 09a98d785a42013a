#!/usr/bin/env bash
# Installs (if needed) and starts Debian's PostgreSQL on 127.0.0.1:5432, with a password role
# and database for Parley. Idempotent; run as root. Prints the environment to export.
#   PARLEY_PG_USER (default parley), PARLEY_PG_PASSWORD (default parley), PARLEY_PG_DB (default parley)
set -euo pipefail
user=${PARLEY_PG_USER:-parley}
password=${PARLEY_PG_PASSWORD:-parley}
db=${PARLEY_PG_DB:-parley}

if ! command -v pg_lsclusters >/dev/null; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql
fi
# Debian's packages never start the server themselves (policy-rc.d): start cluster "main".
version=$(pg_lsclusters -h | awk '$2 == "main" {print $1; exit}')
if [[ -z $version ]]; then
  echo "no PostgreSQL cluster named main; create one with pg_createcluster" >&2
  exit 1
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main"' | grep -q online; then
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
fi
for _ in $(seq 1 30); do
  pg_isready -h 127.0.0.1 -p 5432 -q && break
  sleep 1
done
pg_isready -h 127.0.0.1 -p 5432 -q || { echo "PostgreSQL did not become ready" >&2; exit 1; }

psql_as_postgres() { su postgres -c "psql -v ON_ERROR_STOP=1 -qtAc \"$1\""; }
if [[ $(psql_as_postgres "SELECT 1 FROM pg_roles WHERE rolname='$user'") != 1 ]]; then
  psql_as_postgres "CREATE ROLE $user LOGIN PASSWORD '$password'"
fi
if [[ $(psql_as_postgres "SELECT 1 FROM pg_database WHERE datname='$db'") != 1 ]]; then
  su postgres -c "createdb -O $user $db"
fi
echo "export PG_URL=jdbc:postgresql://127.0.0.1:5432/$db PG_USER=$user PG_PASSWORD=$password"
