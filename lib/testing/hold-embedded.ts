// Test fixture: starts the embedded PostgreSQL in the folder given as argv[2], creates a table with
// one row, prints the URL as a JSON line, and keeps running until it is killed.
import pg from "pg";
import { startEmbeddedPostgres } from "../db/embedded";

const database = await startEmbeddedPostgres(process.argv[2]!);
const client = new pg.Client({ connectionString: database.url });
await client.connect();
await client.query("CREATE TABLE IF NOT EXISTS survivor (note text); INSERT INTO survivor VALUES ('written before the kill')");
await client.end();
console.log(JSON.stringify({ url: database.url }));
setInterval(() => {}, 60_000);
