-- The 1.0 schema: tables, indexes and constraints (drizzle-kit generate from db/schema.ts). Functions and
-- triggers are not here: each is one file of db/functions/, applied after the migrations (db/migrate.ts).
CREATE TABLE "deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"channel" text DEFAULT 'callback' NOT NULL,
	"recipient" text,
	"result" text,
	"event" text NOT NULL,
	"webhook_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"status_code" integer,
	"latency_ms" integer,
	"error" text,
	"next_attempt_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
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
CREATE TABLE "operator_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"operator_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"project_key_hash" text NOT NULL,
	"permissions" text[] NOT NULL,
	"locale" text NOT NULL,
	"task_id" text,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "operator_sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"api_key_hash" text NOT NULL,
	"previous_api_key_hash" text,
	"previous_key_expires_at" timestamp with time zone,
	"webhook_secret" text NOT NULL,
	"previous_webhook_secret" text,
	"previous_webhook_secret_expires_at" timestamp with time zone,
	"source_hosts" jsonb NOT NULL,
	"callback_hosts" jsonb NOT NULL,
	"destination_hosts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"retention_hours" integer NOT NULL,
	"max_running_tasks" integer NOT NULL,
	"submit_per_minute" integer NOT NULL,
	"submit_tat" timestamp with time zone,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "projects_api_key_hash_unique" UNIQUE("api_key_hash"),
	CONSTRAINT "projects_previous_api_key_hash_unique" UNIQUE("previous_api_key_hash")
);
--> statement-breakpoint
CREATE TABLE "schedule_backfills" (
	"id" text PRIMARY KEY NOT NULL,
	"schedule_id" text NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"intervals" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
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
CREATE TABLE "source_slots" (
	"key" text NOT NULL,
	"slot" integer NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "source_slots_key_slot_pk" PRIMARY KEY("key","slot")
);
--> statement-breakpoint
CREATE TABLE "task_counts" (
	"project_id" text NOT NULL,
	"status" text NOT NULL,
	"n" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "task_counts_pk" PRIMARY KEY("project_id","status")
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"operator_id" text NOT NULL,
	"type" text NOT NULL,
	"file_name" text NOT NULL,
	"source_url" text NOT NULL,
	"callback" text,
	"page_size" integer NOT NULL,
	"priority" integer NOT NULL,
	"options" jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"stage" text,
	"total_rows" integer,
	"pages_total" integer,
	"lanes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"files" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error_code" text,
	"error_message" text,
	"idempotency_key" text,
	"request_hash" text NOT NULL,
	"runs" integer DEFAULT 1 NOT NULL,
	"schedule_id" text,
	"admitted_at" timestamp with time zone,
	"start_claimed_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "destinations" ADD CONSTRAINT "destinations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operator_sessions" ADD CONSTRAINT "operator_sessions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedule_backfills" ADD CONSTRAINT "schedule_backfills_schedule_id_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."schedules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deliveries_task_idx" ON "deliveries" USING btree ("task_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "deliveries_email_claim_idx" ON "deliveries" USING btree ("webhook_id") WHERE "deliveries"."channel" = 'email' and "deliveries"."result" in ('sending', 'delivered', 'unknown');--> statement-breakpoint
CREATE INDEX "destinations_project_created_idx" ON "destinations" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "operator_sessions_project_expires_idx" ON "operator_sessions" USING btree ("project_id","expires_at");--> statement-breakpoint
CREATE INDEX "operator_sessions_expires_idx" ON "operator_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "projects_created_idx" ON "projects" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "schedule_backfills_schedule_idx" ON "schedule_backfills" USING btree ("schedule_id","start_at");--> statement-breakpoint
CREATE INDEX "schedules_project_created_idx" ON "schedules" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_project_created_idx" ON "tasks" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_created_idx" ON "tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_project_operator_idx" ON "tasks" USING btree ("project_id","operator_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_project_status_idx" ON "tasks" USING btree ("project_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_status_created_idx" ON "tasks" USING btree ("status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_stage_created_idx" ON "tasks" USING btree ("stage","created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "tasks"."stage" is not null;--> statement-breakpoint
CREATE INDEX "tasks_request_hash_idx" ON "tasks" USING btree ("project_id","request_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_idempotency_idx" ON "tasks" USING btree ("project_id","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_live_request_idx" ON "tasks" USING btree ("project_id","request_hash") WHERE "tasks"."idempotency_key" is null and "tasks"."status" in ('queued', 'running', 'paused');--> statement-breakpoint
CREATE INDEX "tasks_queue_idx" ON "tasks" USING btree ("project_id","priority","created_at","id") WHERE "tasks"."status" = 'queued' and "tasks"."admitted_at" is null;--> statement-breakpoint
CREATE INDEX "tasks_expires_idx" ON "tasks" USING btree ("expires_at") WHERE "tasks"."status" in ('succeeded', 'failed');--> statement-breakpoint
CREATE INDEX "tasks_project_schedule_idx" ON "tasks" USING btree ("project_id","schedule_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);