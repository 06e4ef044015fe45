"""Schemathesis hooks for test/e2e/api-fuzz.test.ts.

The document states every rule a request's shape must follow. A few rules depend on the service's
state, which no schema can state, and a request that is schema-valid but breaks one of them is
rightly refused: the project's allow-lists (a source or callback host the admin did not list is
422 source_host_not_allowed), list cursors (only a next_cursor the API returned is one; any other
is 422), an Idempotency-Key (once used, it names its first body: another body under it is 422
idempotency_key_reused), a schedule's cron expression and time zone (judged by Temporal's cron
parser and the ICU time-zone database; the document gives their form, not their grammar) and its
`every` (the document's pattern gives its form, its description the bounds of 1 minute to 366
days, which a regular expression can state only unreadably), and a
task's template (its nodes and conditions, docs/excel.md: refused with 422 naming
the node). For schema-valid (positive) cases only, these are filled with values the service's
state accepts: the test's own source (DC_FUZZ_SOURCE_URL, on the project's source_hosts, never a
host outside this machine) as every source and callback URL, a fresh Idempotency-Key, no cursor,
a daily cron in UTC, an hourly `every`, and no template. Every
other field keeps what the fuzzer generated, and negative cases are sent exactly as generated.
"""
import os
import uuid

import schemathesis
from schemathesis.generation.modes import GenerationMode

SOURCE = os.environ["DC_FUZZ_SOURCE_URL"]
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
    for key in LAYOUT_RULES:
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
    # Query and headers are mappings, not necessarily dicts (headers are case-insensitive).
    if case.query:
        case.query.pop("cursor", None)
    if case.headers:
        for name in list(case.headers):
            if name.lower() == "idempotency-key":
                case.headers[name] = uuid.uuid4().hex
