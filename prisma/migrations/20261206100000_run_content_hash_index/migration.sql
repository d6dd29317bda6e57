-- An import tells which of its runs other evaluations hold too (the same content, so the same hash)
CREATE INDEX "evaluation_runs_content_hash_idx" ON "evaluation_runs"("content_hash");
