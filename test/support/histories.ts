// Workflow histories as JSON files (test/fixtures/histories), for the replay test and the recorder.
//
// @temporalio/common's historyToJSON/historyFromJSON throw "type must be a Type" in this install:
// npm keeps separate copies of protobufjs under @temporalio/common, @temporalio/proto and
// @temporalio/worker, and protojson's `instanceof Type` check runs against common's copy while the
// History type comes from proto's. The fallback does what proto-utils does, with the protojson of
// the copy @temporalio/proto uses; once the tree is deduplicated the SDK functions are used as they are.
import { createRequire } from 'node:module';
import { type History, historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';

const isSplitProtobuf = (err: unknown) => err instanceof TypeError && err.message === 'type must be a Type';

function protoJson() {
  const req = createRequire(import.meta.url);
  const fromProto = createRequire(req.resolve('@temporalio/proto'));
  const { toJson, fromJson } = fromProto('protobufjs/ext/protojson') as { toJson: (t: unknown, m: unknown) => unknown; fromJson: (t: unknown, j: unknown, o: unknown) => unknown };
  const proto = req('@temporalio/proto');
  const { patchProtobufRoot } = req('@temporalio/proto/lib/patch-protobuf-root');
  const type = patchProtobufRoot(proto).lookupType('temporal.api.history.v1.History');
  return { toJson, fromJson, type, History: proto.temporal.api.history.v1.History };
}

export function toJSON(history: History): string {
  try {
    return historyToJSON(history);
  } catch (err) {
    if (!isSplitProtobuf(err)) throw err;
    const p = protoJson();
    return JSON.stringify(p.toJson(p.type, p.History.fromObject(history)), null, 2);
  }
}

export function fromJSON(json: unknown): History {
  try {
    return historyFromJSON(json);
  } catch (err) {
    if (!isSplitProtobuf(err)) throw err;
    // Our files are canonical proto JSON (EVENT_TYPE_… enums), so proto-utils' enum fixes are moot.
    const p = protoJson();
    return p.fromJson(p.type, json, { ignoreUnknownFields: true }) as History;
  }
}

type HistoryEvent = NonNullable<History['events']>[number];

/** The patch ids a run's history records (its `patched()` markers), in order. */
export function patchIds(events: HistoryEvent[] | null | undefined): string[] {
  return (events ?? [])
    .map((e) => e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data)
    .filter((d): d is Uint8Array => d !== undefined && d !== null)
    .map((d) => (JSON.parse(Buffer.from(d).toString()) as { id: string }).id);
}
