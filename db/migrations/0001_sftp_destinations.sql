ALTER TABLE "destinations" ALTER COLUMN "endpoint" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "destinations" ALTER COLUMN "region" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "destinations" ALTER COLUMN "bucket" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "destinations" ALTER COLUMN "access_key_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "destinations" ALTER COLUMN "path_style" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "destinations" ADD COLUMN "sftp" jsonb;