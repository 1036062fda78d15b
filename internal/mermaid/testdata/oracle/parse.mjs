// Reads a JSON array of diagram sources on stdin and prints a JSON array of
// verdicts: "ok" when mermaid's own parser accepts a source, else "error: "
// and the first line of its message. jsdom supplies the DOM mermaid expects.
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
globalThis.DOMParser = dom.window.DOMParser;
globalThis.Option = dom.window.Option;

const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });

let input = '';
for await (const chunk of process.stdin) input += chunk;
const verdicts = [];
for (const source of JSON.parse(input)) {
  try {
    await mermaid.parse(source);
    verdicts.push('ok');
  } catch (err) {
    verdicts.push('error: ' + String(err?.message ?? err).split('\n')[0]);
  }
}
process.stdout.write(JSON.stringify(verdicts) + '\n');
