/**
 * @module ai/insights/trained/jsonl
 * `import text from "x.jsonl" with { type: "text" }` gives the file's text (Bun text import).
 */
declare module "*.jsonl" {
  const text: string;
  export default text;
}
