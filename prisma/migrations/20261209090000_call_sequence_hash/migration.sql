-- One definition of an imported trace's hash for both of its writers: call_sequence_hash hashes a sequence
-- of [function, arguments, stateChanging] triples. imported_trace_hash builds the triples from a trace's calls
-- and the trace pass (lib/evaluations/record-traces.ts) from a run's tool calls, and both hash them here.
-- The hash itself is unchanged (the same text hashed the same way), so no stored hash moves.
CREATE FUNCTION call_sequence_hash(sequence jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT encode(sha256(convert_to(coalesce(sequence, '[]'::jsonb)::text, 'UTF8')), 'hex')
$$;

CREATE OR REPLACE FUNCTION imported_trace_hash(calls jsonb) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT call_sequence_hash(jsonb_agg(jsonb_build_array(c->'function', c->'args', c->'stateChanging') ORDER BY i))
    FROM jsonb_array_elements(calls) WITH ORDINALITY AS x(c, i)
$$;
