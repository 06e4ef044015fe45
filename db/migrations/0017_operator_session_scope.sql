-- Operator sessions scoped to one task (an e-mail's link), and the indexes of the per-project cap and the purge of expired sessions (docs/adr/0027-operator-sessions.md).
ALTER TABLE "operator_sessions" ADD COLUMN "task_id" text;--> statement-breakpoint
CREATE INDEX "operator_sessions_project_expires_idx" ON "operator_sessions" USING btree ("project_id","expires_at");--> statement-breakpoint
CREATE INDEX "operator_sessions_expires_idx" ON "operator_sessions" USING btree ("expires_at");--> statement-breakpoint
-- Sessions minted before the scope (an e-mail's link lasted as long as its files, up to a year, and
-- opened every task of its operator) last at most a day from now, as every session does since.
UPDATE "operator_sessions" SET "expires_at" = LEAST("expires_at", now() + interval '1 day') WHERE "revoked_at" IS NULL;
