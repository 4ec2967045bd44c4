/** The nine compass gravities: where a watermark goes (shared by the wm_ parser and the dashboard's form). */
export const COMPASS_GRAVITIES = [
  "center",
  "north",
  "northeast",
  "east",
  "southeast",
  "south",
  "southwest",
  "west",
  "northwest",
] as const;

export type CompassGravity = (typeof COMPASS_GRAVITIES)[number];
