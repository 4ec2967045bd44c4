export const TRANSFORM_WORKER: string;
export function buildTransformWorker(root?: string): Promise<string>;
export function bundle(root: string, entry: string, outfile: string, alsoExternal?: string[]): Promise<void>;
