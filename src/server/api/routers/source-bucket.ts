import { z } from "zod";
import { bucketAliasSchema as alias, bucketSchema } from "@/lib/schemas/source-bucket";
import { deleteBucket, listBuckets, saveBucket } from "@/server/tenancy/source-buckets";
import { projectProcedure, router } from "../trpc";

/** Private sources: every member sees which buckets exist (never a secret), admins change them. */
export const sourceBucketRouter = router({
  list: projectProcedure("project.read").query(({ ctx }) => listBuckets(ctx.tenancy, ctx.scope)),

  save: projectProcedure("bucket.write")
    .input(bucketSchema)
    .mutation(({ ctx, input }) =>
      saveBucket(ctx.tenancy, ctx.scope, {
        ...input,
        secretAccessKey: input.secretAccessKey || undefined,
        actorId: ctx.user.id,
      }),
    ),

  delete: projectProcedure("bucket.write")
    .input(z.object({ alias }))
    .mutation(({ ctx, input }) => deleteBucket(ctx.tenancy, ctx.scope, input.alias)),
});
