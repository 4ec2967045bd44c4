ALTER TABLE "user" ADD COLUMN "instance_role" text;--> statement-breakpoint
CREATE UNIQUE INDEX "user_instance_owner_idx" ON "user" USING btree ("instance_role") WHERE "user"."instance_role" = 'owner';--> statement-breakpoint
-- An instance that already has accounts: its earliest account set it up, and becomes its owner.
UPDATE "user" SET "instance_role" = 'owner' WHERE "id" = (SELECT "id" FROM "user" ORDER BY "created_at", "id" LIMIT 1);
