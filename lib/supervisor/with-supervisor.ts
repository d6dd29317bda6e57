// A child of `npm start` must not outlive its supervisor however the supervisor dies: a container
// runtime or a service manager SIGKILLs it after its stop timeout, and a child left behind (each runs
// in a session of its own) holds its port. The supervisor starts each child with an IPC channel
// (supervised-child.ts); the operating system closes it when the supervisor's process ends, for any
// reason, and the child then stops as it would on SIGTERM.

/**
 * Calls `stop` once the process that started this one over an IPC channel is gone; nothing for a
 * process started without one (`npm run worker`, a test's child). The channel keeps nothing alive.
 */
export function stopWithSupervisor(stop: () => void): void {
  if (!process.connected) return;
  process.once("disconnect", stop);
  // Listening for 'disconnect' holds the event loop open; the child's own work decides when it exits.
  process.channel?.unref();
}
