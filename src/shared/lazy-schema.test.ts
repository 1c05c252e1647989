import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { lazySchema } from "./lazy-schema.ts";

describe("lazySchema", () => {
  test("builds the schema at its first use, once, and parses as it does", () => {
    let builds = 0;
    const s = lazySchema(() => {
      builds++;
      return z.object({ name: z.string().min(1), size: z.number().int().default(3) }).strict();
    });
    const list = z.array(s);
    expect(builds).toBe(0);
    expect(s.parse({ name: "a" })).toEqual({ name: "a", size: 3 });
    expect(s.safeParse({ name: "" }).success).toBe(false);
    expect(list.parse([{ name: "b", size: 1 }])).toEqual([{ name: "b", size: 1 }]);
    expect(s instanceof z.ZodObject).toBe(true);
    expect(Object.keys(s.shape)).toEqual(["name", "size"]);
    expect(builds).toBe(1);
  });

  test("compositions refer to the stand-in, and JSON Schema equals the eager schema's (names, descriptions, wrappers)", () => {
    const eagerItem = z.object({ id: z.string().describe("The id") }).describe("An item");
    const eagerFlag = z.string().transform((v) => v === "yes");
    const eager = z.object({ item: eagerItem, items: z.array(eagerItem).optional(), flag: eagerFlag.optional(), more: eagerItem.default({ id: "x" }) });
    const item = lazySchema(() => z.object({ id: z.string().describe("The id") }).describe("An item"));
    const flag = lazySchema(() => z.string().transform((v) => v === "yes"));
    const lazy = lazySchema(() => z.object({ item, items: z.array(item).optional(), flag: flag.optional(), more: item.default({ id: "x" }) }));
    const optionalItem = item.optional();
    expect(optionalItem.unwrap()).toBe(item);

    const registry = z.registry<{ id: string }>();
    registry.add(eagerItem, { id: "Item" });
    registry.add(item, { id: "Item" });
    for (const io of ["input", "output"] as const) {
      const a = z.toJSONSchema(eager, { io, metadata: registry, unrepresentable: "any" });
      const b = z.toJSONSchema(lazy, { io, metadata: registry, unrepresentable: "any" });
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    }
    expect(z.toJSONSchema(lazy, { io: "output", unrepresentable: "any" })).toEqual(z.toJSONSchema(eager, { io: "output", unrepresentable: "any" }));
  });
});
