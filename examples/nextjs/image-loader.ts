// Runs in the browser too, so it knows no secret: it only points at /api/image, which signs.
import { createImageLoader } from "@optstuff/client/next";

export default createImageLoader({ route: "/api/image" });
