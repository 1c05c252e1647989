/**
 * Members and invites of the workspace (console contract "Members, invites"): the paginated
 * member list with roles (changeable with `members:write`; only an owner grants `owner`),
 * removing a member, inviting by a single-use URL, and the pending invites.
 */
import { useState } from "preact/hooks";
import { MailState } from "./mail.tsx";
import { api, apiPath, paged, type Page } from "../api.ts";
import { ActionOutcome, ConfirmDialog, ErrorNote, Loading, Pager, SecretField, Time, useAction, useLoad } from "../components.tsx";
import { ListTable } from "../list-table.tsx";
import { can, session, type Role } from "../state.ts";

type Member = { user_uuid: string; email: string; name: string; role: Role; disabled: boolean; date_created: string; last_login_at: string | null };
type Invite = {
  uuid: string;
  email: string;
  role: Role;
  url?: string;
  date_created: string;
  expires_at: string;
  mail_state?: "queued" | "sent" | "retrying" | "failed" | null;
  mail_error?: string | null;
};

const ROLES: Role[] = ["owner", "admin", "member", "viewer"];
const PAGE_SIZE = 20;

/** Roles this operator may hand out: `owner` only with `workspace:write` (an owner). */
function grantable(): Role[] {
  return ROLES.filter((r) => r !== "owner" || can("workspace:write"));
}

export function MembersSection() {
  const [page, setPage] = useState(1);
  const members = useLoad(() => api<Page<Member>>("GET", paged(apiPath`members/`, page, PAGE_SIZE)), [page]);
  const invites = useLoad(() => api<Page<Invite>>("GET", paged(apiPath`invites/`, 1, 100)), []);
  const action = useAction();
  const [invited, setInvited] = useState<Invite | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const canWrite = can("members:write");
  const me = session.value?.user.uuid;

  const changeRole = (m: Member, role: string) =>
    action.run(`${m.name || m.email} is now ${role}.`, async () => {
      await api("PATCH", apiPath`members/${m.user_uuid}/`, { role });
      members.reload();
    });
  const remove = () => {
    const m = removing;
    setRemoving(null);
    if (!m) return;
    return action.run(`${m.name || m.email} was removed from the workspace.`, async () => {
      await api("DELETE", apiPath`members/${m.user_uuid}/`);
      members.reload();
    });
  };
  const invite = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    return action.run("Invite created. Send the link to the person you invite; it works once, for 7 days.", async () => {
      setInvited(await api<Invite>("POST", apiPath`invites/`, { email: String(f.get("email") ?? "").trim(), role: String(f.get("role")) }));
      // Only the email is cleared: a reset would put the role back to the first option (owner).
      (form.elements.namedItem("email") as HTMLInputElement).value = "";
      invites.reload();
    });
  };
  const cancelInvite = (i: Invite) =>
    action.run(`Invite for ${i.email} cancelled.`, async () => {
      await api("DELETE", apiPath`invites/${i.uuid}/`);
      invites.reload();
    });

  const list = members.data;
  return (
    <section class="card stack" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <ErrorNote error={members.error} />
      {members.loading && !list && <Loading what="members" />}
      {list && (
        <ListTable
          label="Members"
          columns={["Name", "Email", "Role", "Last sign-in"]}
          actions={canWrite}
          rows={list.results}
          row={(m) => (
            <tr key={m.user_uuid}>
              <td class="strong">
                {m.name || "—"}
                {m.user_uuid === me && <span class="muted small"> (you)</span>}
                {m.disabled && <span class="pill pill-off">disabled</span>}
              </td>
              <td>{m.email}</td>
              <td>
                {canWrite && m.user_uuid !== me && (m.role !== "owner" || can("workspace:write")) ? (
                  <select
                    aria-label={`Role of ${m.name || m.email}`}
                    value={m.role}
                    disabled={action.busy}
                    onChange={(e) => changeRole(m, e.currentTarget.value)}
                  >
                    {grantable().map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                ) : (
                  m.role
                )}
              </td>
              <td>
                <Time iso={m.last_login_at} />
              </td>
              {canWrite && (
                <td class="row-actions">
                  {m.user_uuid !== me && (
                    <button type="button" class="button-danger-quiet" aria-label={`Remove ${m.name || m.email}`} onClick={() => setRemoving(m)}>
                      Remove
                    </button>
                  )}
                </td>
              )}
            </tr>
          )}
        />
      )}
      {list && <Pager page={page} count={list.count} pageSize={PAGE_SIZE} onPage={setPage} label="Members" />}
      <ActionOutcome action={action} />
      {invited?.url && <SecretField label="Invite URL" value={invited.url} wrap />}
      {invited?.mail_state && <p class="muted">It is also mailed to {invited.email}; its state is in “Pending invites”.</p>}
      {canWrite && (
        <form class="stack invite-form" onSubmit={invite}>
          <h3>Invite someone</h3>
          <div class="grid-2">
            <div class="field">
              <label for="invite-email">Invite email</label>
              <input id="invite-email" name="email" type="email" required />
            </div>
            <div class="field">
              <label for="invite-role">Invite role</label>
              <select id="invite-role" name="role">
                {grantable().map((r) => (
                  <option key={r} value={r} selected={r === "member"}>
                    {r}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <p class="hint">
            Roles: owner — everything; admin — the whole API and members; member — links, responses, webhooks; viewer — reads links and responses.
          </p>
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              Create invite
            </button>
          </div>
        </form>
      )}
      {invites.data && invites.data.results.length > 0 && (
        <>
          <h3>Pending invites</h3>
          <ListTable
            label="Pending invites"
            columns={["Email", "Role", "Expires", "Mail"]}
            actions={canWrite}
            rows={invites.data.results}
            row={(i) => (
              <tr key={i.uuid}>
                <td>{i.email}</td>
                <td>{i.role}</td>
                <td>
                  <Time iso={i.expires_at} />
                </td>
                <td>
                  <MailState state={i.mail_state} error={i.mail_error} />
                </td>
                {canWrite && (
                  <td class="row-actions">
                    <button type="button" class="button-secondary" aria-label={`Cancel invite for ${i.email}`} onClick={() => cancelInvite(i)}>
                      Cancel
                    </button>
                  </td>
                )}
              </tr>
            )}
          />
        </>
      )}
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing?.name || removing?.email || ""}?`}
        confirmLabel="Remove member"
        danger
        busy={action.busy}
        onConfirm={remove}
        onCancel={() => setRemoving(null)}
      >
        <p>They lose access to this workspace at once; their sessions for it end.</p>
      </ConfirmDialog>
    </section>
  );
}
