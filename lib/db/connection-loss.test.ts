import { describe, expect, it } from "vitest";
import { isConnectionLoss } from "./connection-loss";

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });
const socketError = (syscall: string, code: string) => Object.assign(new Error(`${syscall} ${code}`), { code, errno: -104, syscall });

describe("isConnectionLoss", () => {
  it("knows PostgreSQL's operator-intervention codes and node-postgres's closed-socket messages", () => {
    expect(isConnectionLoss(pgError("57P01", "terminating connection due to administrator command"))).toBe(true);
    expect(isConnectionLoss(pgError("57P02", "terminating connection because of crash of another server process"))).toBe(true);
    expect(isConnectionLoss(pgError("57P03", "the database system is shutting down"))).toBe(true);
    expect(isConnectionLoss(new Error("Connection terminated unexpectedly"))).toBe(true);
  });

  it("knows a reset socket (node-postgres passes on its socket's read ECONNRESET as it is)", () => {
    expect(isConnectionLoss(socketError("read", "ECONNRESET"))).toBe(true);
    expect(isConnectionLoss(socketError("write", "ECONNRESET"))).toBe(true);
  });

  it("leaves every other error to end the process", () => {
    expect(isConnectionLoss(pgError("23505", "duplicate key value violates unique constraint"))).toBe(false);
    expect(isConnectionLoss(pgError("57014", "canceling statement due to user request"))).toBe(false);
    expect(isConnectionLoss(new TypeError("Cannot read properties of undefined"))).toBe(false);
    // http's aborted request: an ECONNRESET that no socket's system call reported.
    expect(isConnectionLoss(pgError("ECONNRESET", "socket hang up"))).toBe(false);
    expect(isConnectionLoss(socketError("connect", "ECONNREFUSED"))).toBe(false);
    expect(isConnectionLoss("57P01")).toBe(false);
    expect(isConnectionLoss(undefined)).toBe(false);
  });
});
