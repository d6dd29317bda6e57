// Where the importer tests find their logs: the real AgentDojo and Inspect fixtures (copied into
// lib/testing/fixtures/ with their READMEs and licences, so a clean clone tests alone), and the hand-made variants.
import { fileURLToPath } from "node:url";

export const SHARED_FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
export const AGENTDOJO_RUNS = `${SHARED_FIXTURES}agentdojo/runs/`;
export const INSPECT_LOGS = `${SHARED_FIXTURES}inspect/`;
export const HAND_MADE = fileURLToPath(new URL("../importers/fixtures/", import.meta.url));
