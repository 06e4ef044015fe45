CREATE TABLE "schedules" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"cron" text,
	"every" text,
	"timezone" text NOT NULL,
	"overlap" text NOT NULL,
	"pause_after_failures" integer NOT NULL,
	"body" jsonb NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"note" text,
	"counting_since" timestamp with time zone DEFAULT now() NOT NULL,
	"run_lease_until" timestamp with time zone,
	"last_run_at" timestamp with time zone,
	"last_task_id" text,
	"last_outcome" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "schedule_id" text;--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "schedules_project_created_idx" ON "schedules" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_project_schedule_idx" ON "tasks" USING btree ("project_id","schedule_id","created_at" DESC NULLS LAST);