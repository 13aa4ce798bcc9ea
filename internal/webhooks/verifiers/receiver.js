// A webhook receiver built on the verifiers Platen's users install:
// GitHub's @octokit/webhooks-methods (Platen-Signature) and the Standard
// Webhooks library (webhook-id, webhook-timestamp, webhook-signature).
// internal/webhooks/verifiers_test.go drives it:
//
//   - It listens on 127.0.0.1, on a port of the system's choosing, and
//     prints {"port": N} as its first line on stdout.
//   - Each line on stdin is {"secrets": ["whsec_…", …]}: the secrets the
//     receivers it stands for hold (one each). It answers {"secrets": n}
//     once they apply.
//   - Each POST is checked with every secret, by both libraries: octokit's
//     verify(secret, body, Platen-Signature), the same against
//     Platen-Signature-Previous (what a receiver that still has only the
//     old secret checks during a rotation), and standardwebhooks'
//     new Webhook(secret).verify(body, headers). It answers 204 when, for
//     every secret, octokit (either header) and standardwebhooks both
//     accept the delivery, and 401 otherwise; and it prints one JSON line
//     with every result, the headers and the body (base64).
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { verify } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";

let secrets = [];

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() === "") return;
  secrets = JSON.parse(line).secrets;
  out({ secrets: secrets.length });
});
// The test closing stdin ends the receiver.
process.stdin.on("end", () => process.exit(0));

async function check(secret, body, headers) {
  const result = { octokit: false, octokit_previous: false, standard: false, standard_error: null };
  const signature = headers["platen-signature"];
  const previous = headers["platen-signature-previous"];
  if (signature) result.octokit = await verify(secret, body, signature);
  if (previous) result.octokit_previous = await verify(secret, body, previous);
  try {
    new Webhook(secret).verify(body, headers);
    result.standard = true;
  } catch (err) {
    result.standard_error = String(err.message || err);
  }
  return result;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    const raw = Buffer.concat(chunks);
    // Both libraries take the payload as a string; Platen's bodies are
    // JSON, UTF-8 by definition.
    const body = raw.toString("utf8");
    const checks = [];
    for (const secret of secrets) {
      checks.push(await check(secret, body, req.headers));
    }
    const ok = secrets.length > 0 && checks.every((c) => (c.octokit || c.octokit_previous) && c.standard);
    const status = ok ? 204 : 401;
    res.writeHead(status);
    res.end();
    out({
      method: req.method,
      path: req.url,
      status,
      checks,
      headers: {
        "platen-event": req.headers["platen-event"] ?? null,
        "platen-delivery": req.headers["platen-delivery"] ?? null,
        "platen-signature": req.headers["platen-signature"] ?? null,
        "platen-signature-previous": req.headers["platen-signature-previous"] ?? null,
        "webhook-id": req.headers["webhook-id"] ?? null,
        "webhook-timestamp": req.headers["webhook-timestamp"] ?? null,
        "webhook-signature": req.headers["webhook-signature"] ?? null,
      },
      body: raw.toString("base64"),
    });
  });
});

server.listen(0, "127.0.0.1", () => out({ port: server.address().port }));
