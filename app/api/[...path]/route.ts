// Any /api/ path no route serves: the API's JSON 404, not Next's HTML page (every method).
import { unknownApiPath } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

export const GET = unknownApiPath;
export const POST = unknownApiPath;
export const PUT = unknownApiPath;
export const PATCH = unknownApiPath;
export const DELETE = unknownApiPath;
