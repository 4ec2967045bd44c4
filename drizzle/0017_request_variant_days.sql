CREATE TABLE "request_variant_days" (
	"day" date NOT NULL,
	"project_id" uuid NOT NULL,
	"variant" text NOT NULL,
	CONSTRAINT "request_variant_days_project_id_day_variant_pk" PRIMARY KEY("project_id","day","variant")
);
--> statement-breakpoint
ALTER TABLE "request_variant_days" ADD CONSTRAINT "request_variant_days_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;