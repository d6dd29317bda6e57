import type { Metadata } from "next";
import { ActionButton, NewApiKeyForm, PasswordForm } from "@/components/account-forms";
import { ShareLinksTable } from "@/components/share-links-table";
import { listApiKeys } from "@/lib/auth/accounts";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
import { listShareLinks } from "@/lib/share/share-links";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Account" };

export default async function AccountPage() {
  const principal = await requirePagePermission("account:self", "/account");
  const db = getDb();
  const keys = await listApiKeys(db, principal.userId);
  const links = can(principal.role, "share:create") ? await listShareLinks(db, { createdById: principal.userId }) : null;
  return (
    <>
      <h1>Account</h1>
      <dl className="facts">
        <dt>Email</dt>
        <dd>{principal.email}</dd>
        <dt>Role</dt>
        <dd data-testid="account-role">{principal.role}</dd>
      </dl>

      <h2>API keys</h2>
      <p className="muted">
        For scripts and harnesses: send <code>Authorization: Bearer &lt;key&gt;</code>. A key acts with your role. It is shown once and stored hashed; revoking it
        refuses its next use.
      </p>
      <NewApiKeyForm />
      {keys.length === 0 ? (
        <p className="muted">No API key yet.</p>
      ) : (
        <div className="table-scroll">
          <table>
            <caption>Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Starts with</th>
                <th scope="col">Created (UTC)</th>
                <th scope="col">Last used (UTC)</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <th scope="row">{k.name}</th>
                  <td>
                    <code>{k.start}…</code>
                  </td>
                  <td>{k.createdAt}</td>
                  <td>{k.lastUsedAt ?? "never"}</td>
                  <td>
                    <ActionButton url={`/api/v1/api-keys/${encodeURIComponent(k.id)}`} method="DELETE" label="Revoke" confirm={`Revoke the key "${k.name}"? Scripts using it stop working.`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {links ? (
        <>
          <h2>Your share links</h2>
          <ShareLinksTable links={links} showCreator={false} />
        </>
      ) : null}

      <h2>Password</h2>
      <PasswordForm />
    </>
  );
}
