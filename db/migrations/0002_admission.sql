ALTER TABLE "projects" ADD COLUMN "submit_tat" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "admitted_at" timestamp with time zone;--> statement-breakpoint
-- Identical live tasks created by the old check-then-insert race keep working, but only the oldest
-- stays a de-duplication target, so the unique index below can be built.
UPDATE "tasks" SET "request_hash" = "request_hash" || ':dup:' || "id"
WHERE "idempotency_key" IS NULL AND "status" IN ('queued', 'running') AND EXISTS (
  SELECT 1 FROM "tasks" o WHERE o."project_id" = "tasks"."project_id" AND o."request_hash" = "tasks"."request_hash"
    AND o."idempotency_key" IS NULL AND o."status" IN ('queued', 'running')
    AND (o."created_at", o."id") < ("tasks"."created_at", "tasks"."id"));--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_live_request_idx" ON "tasks" USING btree ("project_id","request_hash") WHERE "tasks"."idempotency_key" is null and "tasks"."status" in ('queued', 'running', 'paused');--> statement-breakpoint
CREATE INDEX "tasks_queue_idx" ON "tasks" USING btree ("project_id","priority","created_at","id") WHERE "tasks"."status" = 'queued' and "tasks"."admitted_at" is null;