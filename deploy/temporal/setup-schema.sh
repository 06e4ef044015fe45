#!/bin/sh
# Temporal's databases and schema on its Postgres (run by the temporal-schema job in
# docker-compose.yml, image temporalio/admin-tools). Safe to run again: a database that exists is
# kept, and update-schema applies only the versions not applied yet. SQL_PASSWORD comes from the
# environment (temporal-sql-tool reads it there).
set -eu

tool() {
  temporal-sql-tool --plugin postgres12 --ep temporal-db -p 5432 -u temporal "$@"
}

for db in temporal:temporal temporal_visibility:visibility; do
  name=${db%%:*}
  schema=/etc/temporal/schema/postgresql/v12/${db#*:}/versioned
  # "already exists" is the normal case after the first start; any other failure stops below.
  tool --db "$name" create || echo "database $name: create skipped (it exists?)"
  tool --db "$name" setup-schema -v 0.0
  tool --db "$name" update-schema -d "$schema"
done
echo 'Temporal schema ready'
