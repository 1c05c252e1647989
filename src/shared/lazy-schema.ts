/**
 * @module shared/lazy-schema
 * zod schemas built at their first use instead of at module load. Building every feature's
 * schemas when the binary started was ~30 ms of the CPU of a ~100 ms start (docs/performance.md,
 * "Start-up, fourth pass"); most are first needed by a request, or by the OpenAPI document at its
 * first request.
 *
 * `lazySchema(() => z.object({…}))` returns a stand-in with the schema's own type: every property
 * read, `instanceof` and key listing goes to the schema, built by the thunk the first time. The
 * stand-in is the schema's identity for everyone who imports it — compositions (`z.array(x)`,
 * `x.extend(…)`), the OpenAPI component names and `===` checks all see the same object — and
 * zod's registry metadata of the built schema (`.describe()`, `.meta()`) is copied to it, so the
 * OpenAPI document is the same as with eagerly built schemas.
 */
import { z } from "zod";

/** The part of zod's schema internals the JSON Schema conversion calls (zod/v4/core, `$ZodTypeInternals`). */
type ProcessingInternals = {
  processJSONSchema?: (ctx: { seen: Map<unknown, unknown> }, json: unknown, params: unknown) => void;
};

/**
 * A schema built by `build` at its first use.
 * @param build returns the schema; called once, at the first property read of the result
 * @returns a stand-in typed as the schema (so `z.infer`, `.shape`, `.extend()` … keep working)
 */
export function lazySchema<S extends z.ZodType>(build: () => S): S {
  let schema: S | undefined;
  const stand: S = new Proxy(Object.create(null) as S, {
    // The stand-in is the receiver: zod binds a method to the object it is read from on first read,
    // so schemas derived with `.optional()`, `.extend()` … refer to the stand-in, as imports do.
    get: (_, key) => Reflect.get(resolve(), key, stand),
    set: (_, key, value): boolean => Reflect.set(resolve(), key, value, stand),
    has: (_, key) => Reflect.has(resolve(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(resolve()),
    ownKeys: () => Reflect.ownKeys(resolve()),
    // Reported configurable: a proxy may not claim a non-configurable property its target lacks.
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(resolve(), key);
      return d && { ...d, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(resolve(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(resolve(), key),
  });
  function resolve(): S {
    if (schema === undefined) {
      const built = build();
      const meta = z.globalRegistry.get(built);
      if (meta) z.globalRegistry.add(stand, meta);
      // z.toJSONSchema keeps its state per schema object, and reaches this one as the stand-in;
      // the processors of wrappers (.optional(), .default(), .transform() …) look their own
      // state up under the built schema, so it is lent that name while they run.
      const internals = built._zod as ProcessingInternals;
      const processJsonSchema = internals.processJSONSchema;
      if (processJsonSchema) {
        internals.processJSONSchema = (ctx, json, params) => {
          const own = ctx.seen.get(stand);
          if (own) ctx.seen.set(built, own);
          try {
            processJsonSchema(ctx, json, params);
          } finally {
            if (own) ctx.seen.delete(built);
          }
        };
      }
      schema = built;
    }
    return schema;
  }
  return stand;
}
