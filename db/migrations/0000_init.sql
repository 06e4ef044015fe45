CREATE TABLE "deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"event" text NOT NULL,
	"webhook_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"status_code" integer,
	"latency_ms" integer,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"api_key_hash" text NOT NULL,
	"webhook_secret" text NOT NULL,
	"source_hosts" jsonb NOT NULL,
	"callback_hosts" jsonb NOT NULL,
	"retention_hours" integer NOT NULL,
	"max_running_tasks" integer NOT NULL,
	"submit_per_minute" integer NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "projects_api_key_hash_unique" UNIQUE("api_key_hash")
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
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deliveries_task_idx" ON "deliveries" USING btree ("task_id","created_at");--> statement-breakpoint
CREATE INDEX "tasks_project_created_idx" ON "tasks" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_project_operator_idx" ON "tasks" USING btree ("project_id","operator_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_project_status_idx" ON "tasks" USING btree ("project_id","status");--> statement-breakpoint
CREATE INDEX "tasks_request_hash_idx" ON "tasks" USING btree ("project_id","request_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_idempotency_idx" ON "tasks" USING btree ("project_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "tasks_expires_idx" ON "tasks" USING btree ("expires_at");