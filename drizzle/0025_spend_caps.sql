ALTER TABLE "api_keys" ADD COLUMN "spend_cap" jsonb;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "cap_reached" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "cap_reached_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "usage_buffer" ADD COLUMN "transforms" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_record" ADD COLUMN "transforms" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "api_keys_capped_idx" ON "api_keys" USING btree ("id") WHERE "api_keys"."spend_cap" is not null;