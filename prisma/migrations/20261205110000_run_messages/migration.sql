-- The run's conversation as the harness logged it (issue 26, transcripts), in chunks of up to 50 messages
-- in order: a page is read by chunk, and a run of a few messages is one row (an import of 20,000 runs
-- writes 20,000 rows, not 120,000). Copied with a new batch's other detached children before the audit
-- lock, so the run key is checked at commit. Long text is compressed by TOAST.
CREATE TABLE "evaluation_run_messages" (
    "run_id" BIGINT NOT NULL,
    "chunk" INTEGER NOT NULL,
    "first_position" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,
    "messages" JSONB NOT NULL,
    CONSTRAINT "evaluation_run_messages_pkey" PRIMARY KEY ("run_id", "chunk"),
    CONSTRAINT "evaluation_run_messages_count_check" CHECK ("count" BETWEEN 1 AND 50 AND "first_position" = "chunk" * 50)
);

ALTER TABLE "evaluation_run_messages" ADD CONSTRAINT "evaluation_run_messages_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "evaluation_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED;
