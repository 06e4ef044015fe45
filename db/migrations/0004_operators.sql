ALTER TABLE "projects" ADD COLUMN "previous_api_key_hash" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "previous_key_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "previous_webhook_secret" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "previous_webhook_secret_expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "projects_created_idx" ON "projects" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "tasks_created_idx" ON "tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_previous_api_key_hash_unique" UNIQUE("previous_api_key_hash");