"""Schemathesis hooks for test/e2e/api-fuzz.test.ts.

The document states every rule a request's shape must follow. A few rules depend on the service's
state, which no schema can state, and a request that is schema-valid but breaks one of them is
rightly refused: the project's allow-lists (a source or callback host the admin did not list is
422 source_host_not_allowed, an e-mail address outside its email_domains 422 email_domain_not_allowed), list cursors (only a next_cursor the API returned is one; any other
is 422), an Idempotency-Key (once used, it names its first body: another body under it is 422
idempotency_key_reused), a schedule's cron expression and time zone and a task's time_zone (judged
by Temporal's cron parser and the ICU time-zone database; the document gives their form, not
their grammar) and its
`every` (the document's pattern gives its form, its description the bounds of 1 minute to 366
days, which a regular expression can state only unreadably), a backfill's range (end after
start and not in the future, and at most 1,000 due times: rules between two fields and the clock), a
usage range (`to` not before `from`, at most 366 days apart: a rule between two fields), and a
task's template (its nodes and conditions, docs/excel.md: refused with 422 naming
the node), and its charts (their column names must be the table's, the template's or the source's:
422 chart_column_unknown). For schema-valid (positive) cases only, these are filled with values the service's
state accepts: the test's own source (DC_FUZZ_SOURCE_URL, on the project's source_hosts, never a
host outside this machine) as every source and callback URL, a fresh Idempotency-Key, no cursor,
addresses at the project's one e-mail domain (example.com) as notify_email, a daily cron in UTC, a
task's time_zone Asia/Shanghai, an hourly `every`, a backfill of three past hours, a usage range of one month, and no template or charts; a
project's alert_emails at example.com and its alert_callback the test's source, with example.com
and the source's host added to the email_domains and callback_hosts of the same body (the alert
settings are checked against the lists as the change leaves them); a
destination's endpoint is the source's origin (on the project's destination_hosts), an SFTP
destination's host and port the source's, with a password and no private key (a key must parse as
one, and exactly one of the two is given: rules between fields and of a format no schema states), and a task or
schedule names no destination (its id must be one the project made, which a fuzzer cannot know).
Every other field keeps what the fuzzer generated, and negative cases are sent exactly as generated.
"""
import os
import uuid

import schemathesis
from schemathesis.generation.modes import GenerationMode

SOURCE = os.environ["DC_FUZZ_SOURCE_URL"]
ORIGIN = "/".join(SOURCE.split("/")[:3])
HOST = SOURCE.split("/")[2]
# Room for the one entry added to a generated list (both lists hold at most 50).
LIST_ROOM = 49
LAYOUT_RULES = ("template", "charts")


def _fill(body):
    if not isinstance(body, dict):
        return
    for key in ("source_url", "callback"):
        if isinstance(body.get(key), str):
            body[key] = SOURCE
    if isinstance(body.get("cron"), str):
        body["cron"] = "0 3 * * *"
    if isinstance(body.get("every"), str):
        body["every"] = "1h"
    if isinstance(body.get("timezone"), str):
        body["timezone"] = "UTC"
    if isinstance(body.get("time_zone"), str):
        body["time_zone"] = "Asia/Shanghai"
    emails = body.get("notify_email")
    if isinstance(emails, str):
        body["notify_email"] = "fuzz@example.com"
    elif isinstance(emails, list):
        body["notify_email"] = [f"fuzz{i}@example.com" for i in range(len(emails))]
    _fill_alerts(body)
    if isinstance(body.get("endpoint"), str):
        body["endpoint"] = ORIGIN
    if body.get("kind") == "sftp":
        host, _, port = ORIGIN.split("//", 1)[1].partition(":")
        body.update(host=host, port=int(port or 80))
        body.pop("private_key", None)
        body.pop("passphrase", None)
        if not isinstance(body.get("password"), str):
            body["password"] = "fuzz-password"
    for key in LAYOUT_RULES + ("destination_id", "destination_path"):
        body.pop(key, None)
    sheets = body.get("sheets")
    if isinstance(sheets, list):
        for sheet in sheets:
            _fill(sheet)


def _fill_alerts(body):
    if isinstance(body.get("alert_callback"), str):
        body["alert_callback"] = SOURCE
        body["callback_hosts"] = list(body.get("callback_hosts") or [])[:LIST_ROOM] + [HOST]
    alerts = body.get("alert_emails")
    if isinstance(alerts, list) and alerts:
        body["alert_emails"] = [f"alert{i}@example.com" for i in range(len(alerts))]
        body["email_domains"] = list(body.get("email_domains") or [])[:LIST_ROOM] + ["example.com"]


@schemathesis.hook
def before_call(context, case, kwargs):
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE:
        return
    _fill(case.body)
    if case.operation.path.endswith("/backfill") and isinstance(case.body, dict):
        case.body.update(start="2026-01-01T00:00:00Z", end="2026-01-01T03:00:00Z")
    # Query and headers are mappings, not necessarily dicts (headers are case-insensitive).
    if case.query:
        case.query.pop("cursor", None)
        if case.operation.path.endswith("/usage"):
            case.query.update({"from": "2026-11-01", "to": "2026-11-30"})
    if case.headers:
        for name in list(case.headers):
            if name.lower() == "idempotency-key":
                case.headers[name] = uuid.uuid4().hex
