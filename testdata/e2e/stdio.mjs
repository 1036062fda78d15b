// Drive `the-loop serve` over stdio with the official TypeScript SDK:
// initialize, tools/list, then the given tool calls.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { parseArgs, describeTools, runCalls, emit, fail } from "./lib.mjs";

async function main() {
  const { binary, repo, calls } = parseArgs("stdio.mjs");
  const transport = new StdioClientTransport({
    command: binary,
    args: ["serve", "--repo", repo],
    env: { ...process.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += chunk));

  const client = new Client({ name: "the-loop-e2e-stdio", version: "1.0.0" });
  await client.connect(transport);
  const doc = {
    transport: "stdio",
    server: client.getServerVersion(),
    instructions: client.getInstructions(),
    tools: describeTools(await client.listTools()),
  };
  doc.calls = await runCalls(client, calls);
  await client.close();
  doc.stderr = stderr;
  emit(doc);
}

main().catch(fail);
