import sharp, { type OutputInfo, type Sharp } from "sharp";
import { padWith, renderPixels, timeoutSeconds, type RenderInput } from "./render-image";
import type { TransformLimits } from "./types";

type Pixels = { data: Buffer; info: OutputInfo };

/**
 * pixelate_ takes four passes, as libvips has no pixelate and sharp one resize per pipeline (and it
 * extends before it extracts): the job's pixels (raw, before padding), averaged down to one pixel per
 * block, blown back up by exactly the block size with nearest neighbour (square blocks from the top-left
 * corner) and cut to the size they had, then padded. Returns the last pass as a function, to encode (or
 * draw over) as often as needed, so maxbytes_ re-encodes without decoding or averaging again. Every
 * pass is at most the output's size.
 */
export async function pixelated(input: Buffer, job: RenderInput, limits: TransformLimits): Promise<() => Sharp> {
  const block = Math.max(2, Math.round(job.ops.pixelate! * (job.ops.dpr ?? 1)));
  const full = await renderPixels(input, job, limits, { padded: false, raw: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = full.info;
  const small = await fromRaw(full, limits)
    .resize(Math.max(1, Math.ceil(width / block)), Math.max(1, Math.ceil(height / block)), { fit: "fill" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const blocks = await fromRaw(small, limits)
    .resize(small.info.width * block, small.info.height * block, { fit: "fill", kernel: "nearest" })
    .extract({ left: 0, top: 0, width, height })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return () => padWith(fromRaw(blocks, limits), job.plan, job.ops, job.format);
}

function fromRaw({ data, info }: Pixels, limits: TransformLimits): Sharp {
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).timeout({
    seconds: timeoutSeconds(limits.timeoutMs),
  });
}
