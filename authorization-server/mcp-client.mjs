// The official TypeScript SDK client's OAuth support end to end against a Parley endpoint:
// its first request gets the 401, it reads the Protected Resource Metadata named there, finds
// the authorization server, gets a client-credentials token for the resource and calls tools;
// a 403 insufficient_scope makes it get a token with the scopes the challenge names (step-up).
//
// usage: node mcp-client.mjs <MCP endpoint URL> <issuer>; prints one JSON line with what it saw.
import { Client, StreamableHTTPClientTransport, ClientCredentialsProvider } from '@modelcontextprotocol/client';

const [url, issuer] = process.argv.slice(2);
const provider = new ClientCredentialsProvider({
  clientId: 'alice',
  clientSecret: 'alice-secret',
  expectedIssuer: issuer,
});
const client = new Client({ name: 'parley-auth-test', version: '1' },
  { versionNegotiation: { mode: { pin: '2026-07-28' } } });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));

// After a step-up the token has more scopes, so the list may show more: refresh, not the cache.
const names = async () => (await client.listTools(undefined, { cacheMode: 'refresh' })).tools.map((tool) => tool.name);
const text = (result) => result.content[0].text;
const seen = {};
seen.toolsBefore = await names();
seen.whoami = text(await client.callTool({ name: 'whoami', arguments: {} }));
seen.book = text(await client.callTool({ name: 'book', arguments: {} }));
seen.toolsAfter = await names();
seen.scopesAfter = provider.tokens()?.scope;
console.log(JSON.stringify(seen));
await client.close();
