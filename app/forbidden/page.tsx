import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Not allowed" };

export default async function ForbiddenPage({ searchParams }: { searchParams: Promise<{ need?: string }> }) {
  const { need } = await searchParams;
  return (
    <>
      <h1>Not allowed</h1>
      <p role="alert">Your role does not allow this page{need ? <> (it needs <code>{need}</code>)</> : null}. Ask an admin if you need it.</p>
      <p>
        <Link href="/">Back to experiments</Link>
      </p>
    </>
  );
}
