/**
 * @module http/pagination
 * The list envelope `{count, next, previous, results}` (spec: general rule 5; DESIGN §4):
 * 1-based `page`, `page_size` default 20, values above 100 clamped to 100, absolute
 * `next`/`previous` URLs that keep the other query parameters.
 */
import { z } from "zod";
import { AppError } from "../errors.ts";
import { parseWith } from "./validation.ts";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const positiveInt = (name: string) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a positive integer.`)
    .transform(Number)
    .refine((n) => n >= 1, `${name} must be a positive integer.`);

export const pageQuerySchema = z.object({
  page: positiveInt("page").optional(),
  page_size: positiveInt("page_size").optional(),
});

export type PageRequest = { page: number; pageSize: number; offset: number };

/**
 * Reads `page` and `page_size` from a query object.
 * @throws AppError VALIDATION_ERROR for non-numeric, zero or negative values
 */
export function readPage(query: Record<string, unknown>): PageRequest {
  const q = parseWith(pageQuerySchema, { page: query.page, page_size: query.page_size }, "query");
  const page = q.page ?? 1;
  const pageSize = Math.min(q.page_size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export type Envelope<T> = { count: number; next: string | null; previous: string | null; results: T[] };

/**
 * Builds the envelope for one page.
 * @param requestUrl the request's URL (its path and query are kept)
 * @param publicUrl the service's public base URL, e.g. `http://localhost:8080`
 * @throws AppError INVALID_PAGE when `page` is past the last page (page 1 of an empty list is fine)
 */
export function envelope<T>(requestUrl: string, publicUrl: string, page: PageRequest, count: number, results: T[]): Envelope<T> {
  const lastPage = Math.max(1, Math.ceil(count / page.pageSize));
  if (page.page > lastPage) throw new AppError("INVALID_PAGE", `Page ${page.page} does not exist; the last page is ${lastPage}.`);
  const url = new URL(requestUrl);
  const link = (n: number): string => {
    const target = new URL(url.pathname + url.search, publicUrl + "/");
    target.searchParams.set("page", String(n));
    return target.toString();
  };
  return {
    count,
    next: page.page < lastPage ? link(page.page + 1) : null,
    previous: page.page > 1 ? link(page.page - 1) : null,
    results,
  };
}
