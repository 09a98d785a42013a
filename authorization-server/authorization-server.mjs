// A real OAuth 2.1 authorization server for Parley's auth tests and the README walk-through:
// oidc-provider on loopback, client credentials, resource indicators (RFC 8707) for Parley's
// MCP endpoint, JWT access tokens (RFC 9068) or opaque ones checked through introspection (RFC 7662).
//
// Environment: PORT (required), RESOURCE (Parley's canonical URI, required), JWKS_FILE (a JSON
// Web Key Set with private keys; oidc-provider's development key when absent), SCOPES
// (space-separated), STOP_WITH_STDIN=1 (stop when stdin closes).
// Prints one line "ready <issuer>" on stdout once it listens. Re-reads nothing: to rotate keys,
// the test restarts it on the same port with another key set.
import fs from 'node:fs';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const resource = process.env.RESOURCE;
const scopes = process.env.SCOPES || 'mcp:tools venue:book invoice:write';
if (!port || !resource) {
  console.error('PORT and RESOURCE are required');
  process.exit(2);
}
const issuer = `http://127.0.0.1:${port}`;
const jwks = process.env.JWKS_FILE ? JSON.parse(fs.readFileSync(process.env.JWKS_FILE, 'utf8')) : undefined;

const client = (id, extra = {}) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  token_endpoint_auth_method: 'client_secret_basic',
  scope: scopes,
  ...extra,
});

const provider = new Provider(issuer, {
  ...(jwks ? { jwks } : {}),
  clients: [
    client('alice'),
    client('bob'),
    client('reader', { scope: 'mcp:tools' }),
    client('opaque'), // gets opaque tokens, checked by Parley through introspection
    client('parley'), // Parley itself, authenticating to the introspection endpoint
  ],
  scopes: scopes.split(' '),
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => resource,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (ctx, indicator, client) => {
        if (indicator !== resource) {
          throw new Provider.errors.InvalidTarget();
        }
        return {
          scope: scopes,
          audience: resource,
          accessTokenTTL: 600,
          accessTokenFormat: client.clientId === 'opaque' ? 'opaque' : 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
});
provider.proxy = false;

const server = provider.listen(port, '127.0.0.1', () => {
  console.log(`ready ${issuer}`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Started by a test (STOP_WITH_STDIN=1): when its stdin closes, the JVM went away; stop too.
if (process.env.STOP_WITH_STDIN === '1') {
  process.stdin.on('end', stop);
  process.stdin.resume();
}
