// One real MCP TypeScript SDK client driving the Parley demo's three asking tools to completion.
// Run by InteropIT:
//   node drive.mjs <v1|v2-auto|v2-legacy> http <url>
//   node drive.mjs <v1|v2-auto|v2-legacy> stdio <java> <parley.jar> <data dir>
// With PARLEY_NO_ELICITATION=1 the client declares no elicitation: it calls schedule_release and
// book_venue on a taken date, and prints the fallback texts the tools answer with.
// Prints one "result {json}" line per tool, a line "negotiated <version>", and one line
// "received {json}" per message the server sent it ({"answering": <method of the request it
// answers, or null>, "message": ...}); the Java test checks the texts, the demo ledger and, on
// 2025-11-25, every received message against that revision's JSON Schema. Exits 1 on any error.

const [clientKind, transportKind, ...where] = process.argv.slice(2);

const noElicitation = process.env.PARLEY_NO_ELICITATION === '1';

const CALLS = noElicitation ? [
  { name: 'schedule_release', arguments: { service: 'billing' } },
  { name: 'book_venue', arguments: { date: '2026-12-24', guests: 40 } },
] : [
  { name: 'schedule_release', arguments: { service: 'billing' } },
  { name: 'create_invoice', arguments: { client: 'ACME', amount: 120.5 } },
  { name: 'book_venue', arguments: { date: '2026-12-24', guests: 40 } },
];

// Form answers by the question's first field; a URL question is answered after paying on that page.
const FORM_ANSWERS = {
  window: { window: '2026-12-01T10:00:00Z' },
  currency: { currency: 'CHF' },
  date: { date: '2026-12-27' },
};

const asked = [];

async function answerElicitation(params) {
  if (params.mode === 'url') {
    // The demo's payment page on loopback: paying is a POST, as the page's form does.
    const paid = await fetch(params.url, { method: 'POST', body: new URLSearchParams({ card: '4242' }) });
    if (!paid.ok) {
      throw new Error(`payment page ${params.url} answered ${paid.status}`);
    }
    asked.push({ mode: 'url', message: params.message });
    return { action: 'accept' };
  }
  const field = Object.keys(params.requestedSchema?.properties ?? {})[0];
  const content = FORM_ANSWERS[field];
  if (!content) {
    throw new Error(`no answer for a form asking ${JSON.stringify(params.requestedSchema)}`);
  }
  asked.push({ mode: 'form', message: params.message });
  return { action: 'accept', content };
}

async function makeClient() {
  const info = { name: `parley-interop-${clientKind}`, version: '1.0.0' };
  const capabilities = noElicitation ? {} : { elicitation: { form: {}, url: {} } };
  if (clientKind === 'v1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const client = new Client(info, { capabilities });
    if (!noElicitation) {
      client.setRequestHandler(ElicitRequestSchema, request => answerElicitation(request.params));
    }
    return client;
  }
  const mode = { 'v2-auto': 'auto', 'v2-legacy': 'legacy' }[clientKind];
  if (!mode) {
    throw new Error(`unknown client ${clientKind}`);
  }
  const { Client } = await import('@modelcontextprotocol/client');
  const client = new Client(info, {
    capabilities,
    versionNegotiation: { mode },
    inputRequired: { autoFulfill: true, maxRounds: 5 },
  });
  if (!noElicitation) {
    client.setRequestHandler('elicitation/create', request => answerElicitation(request.params));
  }
  return client;
}

async function makeTransport() {
  const v1 = clientKind === 'v1';
  if (transportKind === 'http') {
    const { StreamableHTTPClientTransport } = await import(v1
      ? '@modelcontextprotocol/sdk/client/streamableHttp.js' : '@modelcontextprotocol/client');
    return new StreamableHTTPClientTransport(new URL(where[0]));
  }
  if (transportKind === 'stdio') {
    const { StdioClientTransport } = await import(v1
      ? '@modelcontextprotocol/sdk/client/stdio.js' : '@modelcontextprotocol/client/stdio');
    const [java, jar, data] = where;
    // The server's logs go to its stderr, which this process passes on to the test's log file.
    return new StdioClientTransport({
      command: java, args: ['-Xmx256m', '-XX:TieredStopAtLevel=1', '-jar', jar, 'demo', '--stdio', '--data', data], stderr: 'inherit',
    });
  }
  throw new Error(`unknown transport ${transportKind}`);
}

// Records what arrives on the transport: the SDK clients chain an onmessage handler set before
// connect(), so this one sees every message first. Sent requests are noted by id, to say which
// method each response answers.
function recording(transport) {
  const methods = new Map();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && 'id' in message) {
      methods.set(message.id, message.method);
    }
    return send(message, options);
  };
  transport.onmessage = message => {
    const answering = 'method' in message ? null : methods.get(message.id) ?? null;
    console.log(`received ${JSON.stringify({ answering, message })}`);
  };
  return transport;
}

const client = await makeClient();
let failed = false;
try {
  await client.connect(recording(await makeTransport()));
  const negotiated = clientKind === 'v1' ? '2025-11-25 (v1 speaks only this)' : client.getNegotiatedProtocolVersion();
  console.log(`negotiated ${negotiated}`);
  const tools = (await client.listTools()).tools.map(tool => tool.name);
  console.log(`tools ${JSON.stringify(tools)}`);
  for (const call of CALLS) {
    asked.length = 0;
    const result = await client.callTool(call);
    const text = (result.content ?? []).filter(block => block.type === 'text').map(block => block.text).join('\n');
    console.log(`result ${JSON.stringify({ tool: call.name, isError: result.isError === true, text, asked })}`);
  }
} catch (error) {
  failed = true;
  console.log(`error ${JSON.stringify(String(error?.stack ?? error))}`);
} finally {
  await client.close().catch(() => {});
}
process.exit(failed ? 1 : 0);
