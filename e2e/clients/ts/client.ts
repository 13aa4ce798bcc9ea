// The tutorial's TypeScript client: openapi-typescript's types of the
// served document, openapi-fetch's calls. It creates an order twice with
// one Idempotency-Key, as a retry would, and prints each answer's status,
// the order's uid and Idempotent-Replayed.
import createClient from "openapi-fetch";
import type { paths, webhooks } from "./platen";

declare const process: { argv: string[] };

const [baseUrl, token, body] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
for (let i = 0; i < 2; i++) {
  const { data, response } = await client.POST("/api/v1/orders", {
    params: { header: { "Idempotency-Key": "ts-client-1" } },
    body: JSON.parse(body),
  });
  console.log(response.status, data?.uid ?? "-", response.headers.get("Idempotent-Replayed") ?? "-");
}

// A receiver's type of a webhook body, from the document's webhooks.
type ItemReady = webhooks["order_item.print_file.ready"]["post"]["requestBody"]["content"]["application/json"];
const status: ItemReady["status"] = "ready";
console.log(status);
