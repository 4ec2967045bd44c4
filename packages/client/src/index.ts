export {
  buildOperations,
  textToken,
  type Caption,
  type CompassGravity,
  type Fit,
  type Format,
  type Gravity,
  type Operations,
  type QualityLevel,
  type Watermark,
} from "./operations.js";
export { bucketedExpiry, signature, signUrl, type SignUrlInput, type SigningKeys } from "./sign.js";
export { checkKeyPolicy, type KeyPolicy } from "./policy.js";
export {
  blurDataUrl,
  info,
  paletteCss,
  placeholder,
  type BlurPlaceholderInput,
  type PaletteColour,
  type ImageInfo,
  type FaceBox,
  type OutputInfo,
  type InfoInput,
} from "./placeholder.js";
