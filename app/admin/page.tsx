import { Ban, CircleCheck } from "lucide-react";
import type { Metadata } from "next";
import { ActionButton } from "@/components/account/action-button";
import { ApiKeysTable } from "@/components/account/api-keys-table";
import { NewUserForm, ResetPasswordButton, RoleSelect } from "@/components/account/user-admin";
import { ShareLinksTable } from "@/components/share-links-table";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { PageHeader, Section } from "@/components/ui/page-header";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { listAccounts, listApiKeys } from "@/lib/auth/accounts";
import { requirePagePermission } from "@/lib/auth/guard";
import { MIN_PASSWORD_LENGTH } from "@/lib/auth/schemas";
import { getDb } from "@/lib/db/client";
import { listShareLinks, shareLinksDisabled } from "@/lib/share/share-links";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Admin" };

export default async function AdminPage() {
  const principal = await requirePagePermission("users:admin", "/admin");
  const db = getDb();
  const [users, keys, links, disabled] = await Promise.all([
    listAccounts(db),
    listApiKeys(db),
    listShareLinks(db, {}),
    shareLinksDisabled(db),
  ]);
  return (
    <>
      <PageHeader title="Admin" description="Accounts and their roles, every API key, and every share link on this instance." />

      <Section
        id="users"
        title="Users"
        description="Deactivating signs a user out and refuses their API keys at once; reactivating lets them sign in again with their password."
      >
        <DataTable
          caption={`Accounts (${users.length})`}
          testId="users"
          columns={["Email", "Name", "Role", "Status", "Created", "Actions"]}
        >
          {users.map((u) => {
            const active = u.active;
            const self = u.id === principal.userId;
            return (
              <tr key={u.id}>
                <RowHead>{u.email}</RowHead>
                <Td>{u.name}</Td>
                <Td>
                  <RoleSelect userId={u.id} role={u.role} label={`Role of ${u.email}`} />
                </Td>
                <Td>
                  <Badge tone={active ? "success" : "warning"} data-testid="user-status">
                    {active ? "active" : "deactivated"}
                  </Badge>
                </Td>
                <Td>
                  <Time iso={u.createdAt} />
                </Td>
                <Td>
                  <div className="flex flex-wrap gap-2">
                    {self ? null : active ? (
                      <ActionButton
                        url={`/api/v1/users/${encodeURIComponent(u.id)}/deactivate`}
                        method="POST"
                        label="Deactivate"
                        icon={<Ban aria-hidden="true" />}
                        done={`${u.email} deactivated`}
                        confirm={{
                          title: `Deactivate ${u.email}?`,
                          description:
                            "They are signed out at once and their API keys stop working; their data stays. You can reactivate them later.",
                          confirmLabel: "Deactivate",
                        }}
                      />
                    ) : (
                      <ActionButton
                        url={`/api/v1/users/${encodeURIComponent(u.id)}/reactivate`}
                        method="POST"
                        label="Reactivate"
                        icon={<CircleCheck aria-hidden="true" />}
                        done={`${u.email} reactivated`}
                      />
                    )}
                    <ResetPasswordButton userId={u.id} email={u.email} minLength={MIN_PASSWORD_LENGTH} />
                  </div>
                </Td>
              </tr>
            );
          })}
        </DataTable>
        <h3 className="pt-4 text-base font-semibold">New account</h3>
        <NewUserForm minLength={MIN_PASSWORD_LENGTH} />
      </Section>

      <Section
        id="api-keys"
        title="API keys"
        description="Every key on this instance, with its owner and its last use. Revoking refuses the key's next use."
      >
        <ApiKeysTable
          keys={keys}
          caption={`Every API key (${keys.length})`}
          empty="No API key on this instance"
          testId="all-api-keys"
          owner={(k) => ({
            email: k.owner.email,
            label: (
              <>
                {k.owner.email}
                {k.owner.active ? null : (
                  <Badge tone="warning" className="ml-2">
                    deactivated
                  </Badge>
                )}
              </>
            ),
          })}
        />
      </Section>

      <Section id="share-links" title="Share links on this instance">
        <Alert tone={disabled ? "warning" : "success"} role="status">
          <p data-testid="kill-switch-state">
            {disabled ? "Every share link is disabled: none opens until they are enabled again." : "Share links are enabled."}
          </p>
        </Alert>
        <ActionButton
          url="/api/v1/settings/share-links"
          method="PUT"
          body={{ disabled: !disabled }}
          label={disabled ? "Enable share links again" : "Disable every share link (kill switch)"}
          variant={disabled ? "primary" : "danger"}
          done={disabled ? "Share links enabled" : "Every share link disabled"}
          confirm={
            disabled
              ? undefined
              : {
                  title: "Disable every share link on this instance?",
                  description: "No link opens until you enable them again; links are not revoked.",
                  confirmLabel: "Disable every link",
                }
          }
        />
        <ShareLinksTable links={links} showCreator />
      </Section>
    </>
  );
}
