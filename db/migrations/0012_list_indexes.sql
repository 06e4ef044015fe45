-- List pages by index (docs/adr/0029-list-queries-by-index.md): each filter of GET /v1/tasks and
-- GET /v1/admin/tasks gets an index of its equalities followed by (created_at, id), newest first,
-- so a page reads about `limit` rows however long the history. The status, operator and schedule
-- indexes are rebuilt wider (their old columns stay a prefix, so their other readers keep them).
-- The cleaner's index holds only succeeded tasks: expired ones keep their expires_at.
DROP INDEX IF EXISTS "tasks_expires_idx";--> statement-breakpoint
CREATE INDEX "tasks_expires_idx" ON "tasks" USING btree ("expires_at") WHERE "tasks"."status" = 'succeeded';--> statement-breakpoint
DROP INDEX IF EXISTS "tasks_project_operator_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "tasks_project_status_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "tasks_project_schedule_idx";--> statement-breakpoint
CREATE INDEX "tasks_project_operator_idx" ON "tasks" USING btree ("project_id","operator_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_project_status_idx" ON "tasks" USING btree ("project_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_project_schedule_idx" ON "tasks" USING btree ("project_id","schedule_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_status_created_idx" ON "tasks" USING btree ("status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_stage_created_idx" ON "tasks" USING btree ("stage","created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "tasks"."stage" is not null;
