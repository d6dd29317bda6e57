// The web process's client of the delayed-write service. Server code only.
import "server-only";
import { readServerEnv } from "../env";
import { DelayedWriteClient } from "./delayed-write-client";

const holder = globalThis as typeof globalThis & { boundaryLabService?: DelayedWriteClient };

/** The service at DELAYED_WRITE_URL (set by `npm start`), or null when the web app runs without one. */
export function getServiceClient(): DelayedWriteClient | null {
  if (holder.boundaryLabService) return holder.boundaryLabService;
  const url = readServerEnv().DELAYED_WRITE_URL;
  if (!url) return null;
  holder.boundaryLabService = new DelayedWriteClient(url, 16);
  return holder.boundaryLabService;
}
