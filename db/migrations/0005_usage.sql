CREATE TABLE "usage_days" (
	"project_id" text NOT NULL,
	"day" date NOT NULL,
	"tasks" integer DEFAULT 0 NOT NULL,
	"succeeded" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"rows" bigint DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	"deliveries" integer DEFAULT 0 NOT NULL,
	"emails" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_days_pk" PRIMARY KEY("project_id","day")
);
--> statement-breakpoint
CREATE TABLE "usage_stored" (
	"project_id" text PRIMARY KEY NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "usage_days_day_idx" ON "usage_days" USING btree ("day");