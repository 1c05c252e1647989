/** `import path from "…/libonnxruntime.so.1" with { type: "file" }` gives the file's path. */
declare module "*.so.1" {
  const path: string;
  export default path;
}
/** `import css from "./x.css" with { type: "text" }` gives the stylesheet's text. */
declare module "*.css" {
  const text: string;
  export default text;
}
