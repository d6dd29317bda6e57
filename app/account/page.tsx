import type { Metadata } from "next";
import { ApiKeysTable } from "@/components/account/api-keys-table";
import { NewApiKeyForm } from "@/components/account/api-key-form";
import { PasswordForm } from "@/components/account/password-form";
import { ShareLinksTable } from "@/components/share/share-links-table";
import { Facts } from "@/components/ui/facts";
import { PageHeader, Section } from "@/components/ui/page-header";
import { listApiKeys } from "@/lib/auth/accounts";
import { requirePagePermission } from "@/lib/auth/guard";
import { MIN_PASSWORD_LENGTH } from "@/lib/auth/account-schemas";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/web-process-db";
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
      <PageHeader title="Account" />
      <Facts
        items={[
          ["Email", principal.email],
          [
            "Role",
            <span key="r" data-testid="account-role">
              {principal.role}
            </span>,
          ],
        ]}
      />

      <Section
        title="API keys"
        description={
          <>
            For scripts and harnesses: send <code>Authorization: Bearer &lt;key&gt;</code>. A key acts with your role. It is shown once and
            stored hashed; revoking it refuses its next use.
          </>
        }
      >
        <NewApiKeyForm />
        <ApiKeysTable keys={keys} caption="Your API keys" empty="No API key yet" />
      </Section>

      {links ? (
        <Section title="Your share links">
          <ShareLinksTable links={links} showCreator={false} />
        </Section>
      ) : null}

      <Section title="Password">
        <PasswordForm minLength={MIN_PASSWORD_LENGTH} />
      </Section>
    </>
  );
}
