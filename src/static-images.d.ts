// Static image imports (a sample photo the dashboard shows) typed as Next types them. next-env.d.ts
// says the same, but it is written by `next build`/`next dev` and not committed: typecheck runs first.
/// <reference types="next/image-types/global" />
