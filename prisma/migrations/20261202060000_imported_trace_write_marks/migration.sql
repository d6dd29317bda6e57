-- An imported trace's identity includes its write marks: its content_hash covers each call's
-- function, arguments AND stateChanging, so that two evaluations whose policies mark one call
-- sequence differently get two traces, and a trace never changes once made (lib/traces/imported.ts).
-- One definition of the hash, used by the trace step and by the recomputation below.
CREATE FUNCTION imported_trace_hash(calls jsonb) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT encode(sha256(convert_to(coalesce(jsonb_agg(jsonb_build_array(c->'function', c->'args', c->'stateChanging') ORDER BY i), '[]'::jsonb)::text, 'UTF8')), 'hex')
    FROM jsonb_array_elements(calls) WITH ORDINALITY AS x(c, i)
$$;

-- Existing imported traces, rehashed from their own calls. The old hashes were unique over
-- (function, arguments) sequences, which the new key contains, so the new ones are unique too;
-- ground-truth traces have no hash (traces_source_check) and are not touched.
UPDATE "traces" SET "content_hash" = imported_trace_hash("calls") WHERE "source" = 'imported';
