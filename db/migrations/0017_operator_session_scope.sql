-- Operator sessions scoped to one task (an e-mail's link), and the indexes of the per-project cap and the purge of expired sessions (docs/adr/0027-operator-sessions.md).
ALTER TABLE "operator_sessions" ADD COLUMN "task_id" text;--> statement-breakpoint
CREATE INDEX "operator_sessions_project_expires_idx" ON "operator_sessions" USING btree ("project_id","expires_at");--> statement-breakpoint
CREATE INDEX "operator_sessions_expires_idx" ON "operator_sessions" USING btree ("expires_at");