import type { Metadata } from "next";
import { ActionButton, NewUserForm, RoleSelect } from "@/components/account-forms";
import { ShareLinksTable } from "@/components/share-links-table";
import { listAccounts } from "@/lib/auth/accounts";
import { requirePagePermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { listShareLinks, shareLinksDisabled } from "@/lib/share/share-links";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Admin" };

export default async function AdminPage() {
  await requirePagePermission("users:admin", "/admin");
  const db = getDb();
  const [users, links, disabled] = await Promise.all([listAccounts(db), listShareLinks(db, {}), shareLinksDisabled(db)]);
  return (
    <>
      <h1>Admin</h1>

      <h2>Share links on this instance</h2>
      <p data-testid="kill-switch-state" className={disabled ? "fail" : "pass"}>
        {disabled ? "Every share link is disabled: none opens until they are enabled again." : "Share links are enabled."}
      </p>
      <ActionButton
        url="/api/v1/settings/share-links"
        method="PUT"
        body={{ disabled: !disabled }}
        label={disabled ? "Enable share links again" : "Disable every share link (kill switch)"}
        confirm={disabled ? undefined : "Disable every share link on this instance at once?"}
      />
      <ShareLinksTable links={links} showCreator />

      <h2>Users</h2>
      <div className="table-scroll">
        <table>
          <caption>Accounts ({users.length})</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Created (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id}>
                <th scope="row">{u.email}</th>
                <td>{u.name}</td>
                <td>
                  <RoleSelect userId={u.id} role={u.role} label={`Role of ${u.email}`} />
                </td>
                <td>{u.createdAt}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>New account</h3>
      <NewUserForm />
    </>
  );
}
