/**
 * @module media/operations
 * The OpenAPI entries of `media/images/` (issue 26; docs/api.md "Images").
 */
import { z } from "zod";
import { operation, type Operation } from "../../http/operation.ts";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { IMAGE_TYPES } from "./images.ts";

const uploadedImageSchema = lazySchema(() =>
  z.object({
    uuid: z.string().uuid(),
    url: z.string().describe("Absolute public URL of the image: use it as an image-choice card's media_url"),
    content_type: z.enum(IMAGE_TYPES).describe("The type judged by the bytes"),
    size: z.number().int().describe("Bytes"),
    date_created: z.string(),
  }),
);

/** The media endpoints, one declaration each: route, document entry and scope. */
export const mediaOps = {
  upload: operation({
    method: "post",
    path: "/api/v1/media/images/",
    summary: "Upload an image for image-choice cards (PNG, JPEG, WebP or GIF by its bytes; at most 5 MiB; never SVG)",
    tag: "media",
    scope: "links:write",
    rawBody: [...IMAGE_TYPES],
    success: { status: 201, schema: uploadedImageSchema, description: "Stored image and its public URL" },
    errors: ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED", "INSUFFICIENT_SCOPE", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"],
  }),
  image: operation({
    method: "get",
    path: "/api/v1/media/images/:image_uuid/",
    summary: "An uploaded image (public: the intake page shows it to respondents)",
    tag: "media",
    scope: "public",
    success: { status: 200, description: "The image's bytes, with the type judged at upload", mediaTypes: [...IMAGE_TYPES], schema: z.string() },
    errors: ["NOT_FOUND"],
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const mediaOperations: Operation[] = Object.values(mediaOps);
