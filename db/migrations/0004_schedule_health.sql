ALTER TABLE "schedule_backfills" ADD COLUMN "done" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "schedule_backfills" ADD COLUMN "last_run_id" text;--> statement-breakpoint
ALTER TABLE "schedules" ADD COLUMN "paused_reason" text;--> statement-breakpoint
ALTER TABLE "schedules" ADD COLUMN "last_error" jsonb;--> statement-breakpoint
ALTER TABLE "schedules" ADD COLUMN "consecutive_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "schedules" ADD COLUMN "alerted_at" timestamp with time zone;