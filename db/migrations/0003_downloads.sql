CREATE TABLE "downloads" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"project_id" text NOT NULL,
	"file_name" text NOT NULL,
	"file_index" integer NOT NULL,
	"via" text NOT NULL,
	"by_kind" text NOT NULL,
	"by_id" text,
	"session_id" text,
	"ip" text NOT NULL,
	"user_agent" text NOT NULL,
	"range" text,
	"bytes" bigint NOT NULL,
	"complete" boolean NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "downloads" ADD CONSTRAINT "downloads_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "downloads_project_at_idx" ON "downloads" USING btree ("project_id","at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "downloads_task_at_idx" ON "downloads" USING btree ("task_id","at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "downloads_project_by_at_idx" ON "downloads" USING btree ("project_id","by_kind","by_id","at" DESC NULLS LAST,"id" DESC NULLS LAST);