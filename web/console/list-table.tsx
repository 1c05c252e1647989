/**
 * The table of a list page (links, API keys, webhooks, deliveries, members, invites, audit log,
 * invitations): a scrollable, focusable region named `label`, a visually hidden caption with the
 * same name, one column header per column (and an unnamed "Actions" one), one row per item, and
 * a single row saying the list is empty. The row markup stays with its page.
 */
import type { ComponentChildren, VNode } from "preact";
import { TableWrap } from "./components.tsx";

/**
 * @param props.label names the region and the table (caption), e.g. "Links"
 * @param props.columns the header texts, in order
 * @param props.actions adds a last header read as "Actions" (visually hidden)
 * @param props.caption false: no caption (the table keeps no name of its own)
 * @param props.empty what the single row says when `rows` is empty (none: no such row)
 * @param props.row one `<tr>` (with its `key`) per item and its index in `rows`
 */
export function ListTable<T>(props: {
  label: string;
  class?: string;
  columns: string[];
  actions?: boolean;
  caption?: boolean;
  rows: T[];
  empty?: ComponentChildren;
  row: (item: T, index: number) => VNode;
}) {
  const span = props.columns.length + (props.actions ? 1 : 0);
  const empty = props.rows.length === 0 && props.empty !== undefined;
  return (
    <TableWrap label={props.label}>
      {/* is-empty: a phone hides the header row visually, so the empty row's sentence fits the screen. */}
      <table class={[props.class, empty && "is-empty"].filter(Boolean).join(" ") || undefined}>
        {props.caption !== false && <caption class="visually-hidden">{props.label}</caption>}
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
            {props.actions && (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {empty && (
            <tr>
              <td colSpan={span} class="empty">
                {props.empty}
              </td>
            </tr>
          )}
          {props.rows.map(props.row)}
        </tbody>
      </table>
    </TableWrap>
  );
}
