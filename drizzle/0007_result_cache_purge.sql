CREATE TABLE "source_purges" (
	"project_id" uuid NOT NULL,
	"source" text NOT NULL,
	"generation" integer NOT NULL,
	"purged_by" text,
	"purged_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "source_purges_project_id_source_pk" PRIMARY KEY("project_id","source")
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "cache_generation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "cache_base" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "cache_purged_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "source_purges" ADD CONSTRAINT "source_purges_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_purges" ADD CONSTRAINT "source_purges_purged_by_user_id_fk" FOREIGN KEY ("purged_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;