-- Backfills asked of a schedule (ADR 0034): a run due inside one is never skipped by the schedule's
-- overlap rule. Removed with the schedule.
CREATE TABLE "schedule_backfills" (
	"id" text PRIMARY KEY NOT NULL,
	"schedule_id" text NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"intervals" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "schedule_backfills" ADD CONSTRAINT "schedule_backfills_schedule_id_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."schedules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "schedule_backfills_schedule_idx" ON "schedule_backfills" USING btree ("schedule_id","start_at");