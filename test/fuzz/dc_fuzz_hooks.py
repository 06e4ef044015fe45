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
start and not in the future, and at most 1,000 due times: rules between two fields and the clock), and a
task's template (its nodes and conditions, docs/excel.md: refused with 422 naming
the node). For schema-valid (positive) cases only, these are filled with values the service's
state accepts: the test's own source (DC_FUZZ_SOURCE_URL, on the project's source_hosts, never a
host outside this machine) as every source and callback URL, a fresh Idempotency-Key, no cursor,
addresses at the project's one e-mail domain (example.com) as notify_email, a daily cron in UTC, a
task's time_zone Asia/Shanghai, an hourly `every`, a backfill of three past hours, and no template; a
destination's endpoint is the source's origin (on the project's destination_hosts), and a task or
schedule names no destination (its id must be one the project made, which a fuzzer cannot know).
Every other field keeps what the fuzzer generated, and negative cases are sent exactly as generated.
"""
import os
import uuid

import schemathesis
from schemathesis.generation.modes import GenerationMode

SOURCE = os.environ["DC_FUZZ_SOURCE_URL"]
ORIGIN = "/".join(SOURCE.split("/")[:3])
LAYOUT_RULES = ("template",)


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
    if isinstance(body.get("endpoint"), str):
        body["endpoint"] = ORIGIN
    for key in LAYOUT_RULES + ("destination_id", "destination_path"):
        body.pop(key, None)
    sheets = body.get("sheets")
    if isinstance(sheets, list):
        for sheet in sheets:
            _fill(sheet)


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
    if case.headers:
        for name in list(case.headers):
            if name.lower() == "idempotency-key":
                case.headers[name] = uuid.uuid4().hex
