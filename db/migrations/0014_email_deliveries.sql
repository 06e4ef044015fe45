ALTER TABLE "deliveries" ADD COLUMN "channel" text DEFAULT 'callback' NOT NULL;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "recipient" text;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "result" text;--> statement-breakpoint
CREATE UNIQUE INDEX "deliveries_email_claim_idx" ON "deliveries" USING btree ("webhook_id") WHERE "deliveries"."channel" = 'email' and "deliveries"."result" in ('sending', 'delivered', 'unknown');