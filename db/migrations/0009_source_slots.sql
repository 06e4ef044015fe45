-- Source politeness slots as leased rows (domain/source/limiter.ts): no connection is held while a request runs.
CREATE TABLE "source_slots" (
	"key" text NOT NULL,
	"slot" integer NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "source_slots_key_slot_pk" PRIMARY KEY("key","slot")
);
