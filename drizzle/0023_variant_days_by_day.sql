-- Written by hand, as 0022: drizzle-kit does not model partitioned tables, and the snapshot does not
-- change. The per-variant days, a row per variant a project delivered each day, become partitioned by
-- day like the request log, retired by dropping a day. The release before deletes their old rows by
-- primary key in batches, which holds on the partitioned table (a ctid, which the release before that
-- used, names no single row of it: why this waited a release). The table as it was becomes the first
-- partition, up to the day after its newest row, whole: its primary key and foreign key are attached
-- as they are, nothing is copied. An empty one (a new database) is dropped.
ALTER TABLE "request_variant_days" RENAME TO "request_variant_days_unpartitioned";--> statement-breakpoint
ALTER TABLE "request_variant_days_unpartitioned" RENAME CONSTRAINT "request_variant_days_project_id_day_variant_pk" TO "request_variant_days_unpartitioned_pk";--> statement-breakpoint
CREATE TABLE "request_variant_days" (
	"day" date NOT NULL,
	"project_id" uuid NOT NULL,
	"variant" text NOT NULL,
	CONSTRAINT "request_variant_days_project_id_day_variant_pk" PRIMARY KEY("project_id","day","variant")
) PARTITION BY RANGE ("day");--> statement-breakpoint
ALTER TABLE "request_variant_days" ADD CONSTRAINT "request_variant_days_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "request_variant_days_default" PARTITION OF "request_variant_days" DEFAULT;--> statement-breakpoint
DO $$
DECLARE
	bound text;
BEGIN
	SELECT to_char(max(day) + 1, 'YYYY-MM-DD') INTO bound FROM request_variant_days_unpartitioned;
	IF bound IS NULL THEN
		DROP TABLE request_variant_days_unpartitioned;
	ELSE
		EXECUTE format('ALTER TABLE request_variant_days_unpartitioned RENAME TO %I', 'request_variant_days_before_' || replace(bound, '-', ''));
		EXECUTE format(
			'ALTER TABLE request_variant_days ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)',
			'request_variant_days_before_' || replace(bound, '-', ''),
			bound
		);
	END IF;
END $$;
