/**
 * @module runtime/sharp-stub
 * Replaces `sharp` in the compiled binary (see build-plugins.ts). transformers.js imports sharp
 * for image pipelines only and refuses to load when the import is falsy, while the real package
 * needs native libvips files that a single executable cannot carry. Earshot runs no image
 * model, so a function that throws when called is enough. A default export, because that is
 * how transformers.js imports it.
 */
export default function sharp(): never {
  throw new Error("Image processing (sharp) is not included in the Earshot binary.");
}
