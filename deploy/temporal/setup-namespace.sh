#!/bin/sh
# The namespace and the search attributes of the export workflows (docs/operations.md), registered once the
# server answers (the temporal-setup job in docker-compose.yml, image temporalio/admin-tools).
# Safe to run again: what exists is left as it is.
set -eu
NS=${NAMESPACE:-default}
ADDRESS=${TEMPORAL_ADDRESS:-temporal:7233}

tries=0
until temporal operator cluster health --address "$ADDRESS" | grep -q SERVING; do
  tries=$((tries + 1))
  [ "$tries" -lt 60 ] || { echo "Temporal at $ADDRESS is not serving" >&2; exit 1; }
  sleep 2
done

if ! temporal operator namespace describe --address "$ADDRESS" --namespace "$NS" >/dev/null 2>&1; then
  temporal operator namespace create --address "$ADDRESS" --namespace "$NS" --retention "${NAMESPACE_RETENTION:-7d}"
fi

# Keyword: exact-match filters in the UI and `temporal workflow list --query`; Int: DcRows > 1000000.
existing=$(temporal operator search-attribute list --address "$ADDRESS" --namespace "$NS")
for attribute in DcProjectId:Keyword DcOperatorId:Keyword DcExportType:Keyword DcStatus:Keyword DcRows:Int; do
  name=${attribute%%:*}
  if echo "$existing" | grep -qw "$name"; then
    echo "search attribute $name: registered"
  else
    temporal operator search-attribute create --address "$ADDRESS" --namespace "$NS" --name "$name" --type "${attribute#*:}"
  fi
done
echo "namespace $NS ready"
