// Drive `the-loop serve --http` with the official TypeScript SDK and plain
// fetch: the start-up refusal without a token, the HTTP refusals (no token,
// wrong token, bad Origin), /healthz, initialize + tools/list + the given
// calls, concurrent clients, and graceful exit on SIGTERM.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parseArgs, describeTools, runCalls, emit, fail } from "./lib.mjs";

const CONCURRENT_CLIENTS = 8;
const START_TIMEOUT_MS = 20000;

function envWithout(name) {
  const env = { ...process.env };
  delete env[name];
  return env;
}

// startServer spawns the binary and resolves once it prints its endpoint.
function startServer(binary, repo, env) {
  const child = spawn(binary, ["serve", "--repo", repo, "--http", "127.0.0.1:0"], { env, stdio: ["ignore", "pipe", "pipe"] });
  const state = { child, stderr: "", stdout: "" };
  child.stdout.on("data", (c) => (state.stdout += c));
  const endpoint = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no endpoint within ${START_TIMEOUT_MS} ms; stderr:\n${state.stderr}`)), START_TIMEOUT_MS);
    child.stderr.on("data", (c) => {
      state.stderr += c;
      const m = state.stderr.match(/listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening; stderr:\n${state.stderr}`));
    });
  });
  state.exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return { state, endpoint };
}

// refusalAtStart runs the server with no token and records how it refuses.
async function refusalAtStart(binary, repo) {
  const child = spawn(binary, ["serve", "--repo", repo, "--http", "127.0.0.1:0"], {
    env: envWithout("THE_LOOP_MCP_TOKEN"),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  const code = await new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve("still running");
    }, START_TIMEOUT_MS);
    child.on("exit", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  return { exitCode: code, stderr };
}

const initBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "e2e-raw", version: "1" } },
});

async function probe(url, headers, body = initBody) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, wwwAuthenticate: res.headers.get("www-authenticate"), body: text };
}

async function connect(endpoint, token) {
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "the-loop-e2e-http", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

async function main() {
  const { binary, repo, calls } = parseArgs("http.mjs");
  const doc = { transport: "http" };
  doc.startWithoutToken = await refusalAtStart(binary, repo);

  const token = randomBytes(32).toString("hex");
  const { state, endpoint: endpointP } = startServer(binary, repo, { ...process.env, THE_LOOP_MCP_TOKEN: token });
  try {
    const endpoint = await endpointP;
    doc.endpoint = endpoint;
    const base = endpoint.replace(/\/mcp$/, "");

    const health = await fetch(base + "/healthz");
    doc.healthz = { status: health.status, body: await health.text() };
    doc.refusals = {
      noToken: await probe(endpoint, {}),
      wrongToken: await probe(endpoint, { Authorization: "Bearer not-the-token-000000000000" }),
      badOrigin: await probe(endpoint, { Authorization: `Bearer ${token}`, Origin: "https://evil.example" }),
    };

    const { client, transport } = await connect(endpoint, token);
    doc.server = client.getServerVersion();
    doc.instructions = client.getInstructions();
    doc.sessionId = transport.sessionId ?? null;
    doc.tools = describeTools(await client.listTools());
    doc.calls = await runCalls(client, calls);
    await transport.terminateSession().catch(() => {});
    await client.close();

    const results = await Promise.allSettled(
      Array.from({ length: CONCURRENT_CLIENTS }, async () => {
        const c = await connect(endpoint, token);
        const list = await c.client.listTools();
        const callResults = await runCalls(c.client, calls);
        await c.transport.terminateSession().catch(() => {});
        await c.client.close();
        return { tools: list.tools.length, calls: callResults };
      }),
    );
    doc.concurrent = {
      clients: CONCURRENT_CLIENTS,
      ok: results.filter((r) => r.status === "fulfilled").length,
      errors: results.filter((r) => r.status === "rejected").map((r) => String(r.reason?.message ?? r.reason)),
      sameAsSerial: results.every(
        (r) => r.status === "fulfilled" && r.value.tools === doc.tools.length &&
          JSON.stringify(r.value.calls.map((c) => c.isError)) === JSON.stringify(doc.calls.map((c) => c.isError)),
      ),
    };
  } finally {
    state.child.kill("SIGTERM");
    doc.exit = await state.exited;
    doc.stdout = state.stdout;
    doc.stderr = state.stderr;
  }
  emit(doc);
}

main().catch(fail);
