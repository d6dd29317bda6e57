// The bounds on what one log file may make the importer hold or inflate (docs/importers.md).

/** A JSON file up to this size is read and parsed whole; a larger one streams. */
export const MAX_WHOLE_JSON_BYTES = 16 * 1024 * 1024;
/** One field or one sample of a streamed JSON file, or one archive entry: held whole to parse it. */
export const MAX_JSON_VALUE_BYTES = 64 * 1024 * 1024;
export const MAX_ARCHIVE_ENTRIES = 20_000;
export const MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024;
