// Where the importer tests find their logs: the shared real fixtures beside the checkout, and the hand-made variants here.
import { fileURLToPath } from "node:url";

export const SHARED_FIXTURES = fileURLToPath(new URL("../../../shared/fixtures/", import.meta.url));
export const AGENTDOJO_RUNS = `${SHARED_FIXTURES}agentdojo/runs/`;
export const INSPECT_LOGS = `${SHARED_FIXTURES}inspect/`;
export const HAND_MADE = fileURLToPath(new URL("../importers/fixtures/", import.meta.url));
