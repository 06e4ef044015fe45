-- Destinations (docs/destinations.md): a project's delivery targets, the admin's destination_hosts allow-list,
-- and the expiry index widened to failed tasks, whose files stay downloadable when their delivery failed.
CREATE TABLE "destinations" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"endpoint" text NOT NULL,
	"region" text NOT NULL,
	"bucket" text NOT NULL,
	"prefix" text NOT NULL,
	"access_key_id" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"path_style" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "tasks_expires_idx";--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "destination_hosts" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "destinations" ADD CONSTRAINT "destinations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "destinations_project_created_idx" ON "destinations" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_expires_idx" ON "tasks" USING btree ("expires_at") WHERE "tasks"."status" in ('succeeded', 'failed');