export const TRANSFORM_WORKER: string;
export function buildTransformWorker(root?: string): Promise<string>;
