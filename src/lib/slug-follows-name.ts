import type { ChangeEvent } from "react";
import type { UseFormReturn } from "react-hook-form";
import { fieldOf } from "./forms";
import { slugify } from "./slugify";

type NameAndSlug = { name: string; slug: string };

/**
 * The name and slug fields of a form. The slug is lower-cased as it is typed; on a new team or project
 * (`follow`) it is also suggested from the name until someone edits it.
 */
export function useSlugFollowsName<T extends NameAndSlug>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any output type: only name and slug are read
  anyForm: UseFormReturn<T, any, any>,
  { follow }: { follow: boolean },
) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the same form, seen through the two fields it has
  const form = anyForm as unknown as UseFormReturn<NameAndSlug, any, any>;
  const name = fieldOf(form, "name", {
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      if (follow && !form.getFieldState("slug").isDirty)
        form.setValue("slug", slugify(event.target.value), { shouldValidate: form.formState.isSubmitted });
    },
  });
  const slug = fieldOf(form, "slug", {
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      const lower = event.target.value.toLowerCase();
      if (lower !== event.target.value)
        form.setValue("slug", lower, { shouldDirty: true, shouldValidate: form.formState.isSubmitted });
    },
  });
  return { name, slug };
}
