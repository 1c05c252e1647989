/**
 * @module web/intake/hidden
 * Hidden fields (issue 25; docs/intake.md "Hidden fields"): the page reads the values of the link's
 * declared hidden fields from its own URL's query once, when it loads (`/i/<slug>?order_id=123`),
 * and sends them when it starts the session; conditions may test them. Other query parameters
 * (`preview`, anything undeclared) are not sent. The server checks the values again and bounds them.
 */

/**
 * The declared hidden fields' values in `search` (a URL's query, `?a=1&b=2`): the first value of
 * each declared name, empty values left out.
 * @returns name → value, in the declaration's order
 */
export function readHiddenValues(search: string, declared: readonly string[]): Map<string, string> {
  const params = new URLSearchParams(search);
  const out = new Map<string, string>();
  for (const name of declared) {
    const value = params.get(name);
    if (value) out.set(name, value);
  }
  return out;
}
