// Shared helpers for the end-to-end scripts. Each script prints one JSON
// document on stdout (the Go test in mcp/e2e_test.go reads it) and exits
// non-zero only when the harness itself fails.
import { readFileSync } from "node:fs";

export function usage(script) {
  process.stderr.write(
    `usage: node ${script} <the-loop binary> <repo dir> [calls]\n` +
      `  calls: a JSON array of {"name": TOOL, "arguments": {...}}, inline or as a file path\n`,
  );
  process.exit(2);
}

// parseArgs returns {binary, repo, calls} from argv.
export function parseArgs(script) {
  const [binary, repo, callsArg] = process.argv.slice(2);
  if (!binary || !repo) usage(script);
  let calls = [];
  if (callsArg) {
    const text = callsArg.trim().startsWith("[") ? callsArg : readFileSync(callsArg, "utf8");
    calls = JSON.parse(text);
    if (!Array.isArray(calls)) throw new Error("calls must be a JSON array");
  }
  return { binary, repo, calls };
}

// describeTools keeps what the Go test asserts on.
export function describeTools(list) {
  return list.tools.map((t) => ({
    name: t.name,
    title: t.title,
    annotations: t.annotations,
    inputSchema: t.inputSchema,
  }));
}

// runCalls calls each tool in order and records the outcome; a protocol
// error is recorded, not thrown, so one bad call does not hide the rest.
export async function runCalls(client, calls) {
  const out = [];
  for (const call of calls) {
    try {
      const res = await client.callTool({ name: call.name, arguments: call.arguments ?? {} });
      out.push({
        name: call.name,
        isError: res.isError === true,
        text: (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
        structuredContent: res.structuredContent ?? null,
      });
    } catch (err) {
      out.push({ name: call.name, protocolError: String(err?.message ?? err) });
    }
  }
  return out;
}

export function emit(doc) {
  process.stdout.write(JSON.stringify(doc, null, 2) + "\n");
}

export function fail(err) {
  process.stderr.write(`e2e harness failed: ${err?.stack ?? err}\n`);
  process.exit(1);
}
