// A real OpenID Connect provider for the accounts tests: npm oidc-provider (OpenID
// Certified), run as a process by tests/integration/accounts/oidc_provider.py.
//
// Everything protocol-side is oidc-provider's own: discovery, JWKS, the authorization
// endpoint (PKCE required of every client), the token endpoint, ID tokens. Only the user's
// part is scripted, so a test can play it over HTTP without a browser:
//
//   GET  /interaction/:uid          -> JSON {"uid", "prompt"} ("login" or "consent"); to a
//                                      browser (Accept: text/html) the same as a page with
//                                      the form that posts the step below
//   POST /interaction/:uid/login    form login=<subject>&username=<preferred_username>
//   POST /interaction/:uid/confirm  grants the scopes asked for
//
// Settings, from the environment:
//   OIDC_PORT     the loopback port to listen on
//   OIDC_ISSUER   the issuer URL (default http://127.0.0.1:<port>)
//   OIDC_CLIENTS  JSON list of clients (client_id, client_secret, redirect_uris)
//   OIDC_JWKS     JSON {"keys": [...]}: the private signing keys (a test may share them
//                 between two providers of different issuers, or rotate them)
//   OIDC_ID_TOKEN_TTL  seconds an ID token lasts (default 600)
import http from 'node:http';
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT);
const issuer = process.env.OIDC_ISSUER || `http://127.0.0.1:${port}`;
const clients = JSON.parse(process.env.OIDC_CLIENTS || '[]').map((c) => ({
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  ...c,
}));
const jwks = process.env.OIDC_JWKS ? JSON.parse(process.env.OIDC_JWKS) : undefined;
const usernames = new Map();

const provider = new Provider(issuer, {
  clients,
  ...(jwks ? { jwks } : {}),
  claims: { openid: ['sub'], profile: ['preferred_username', 'name'] },
  cookies: { keys: ['parlor-tests-only'] },
  // profile claims in the ID token too (as Keycloak and Google send them), not only at userinfo
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: false } },
  pkce: { required: () => true },
  ttl: { IdToken: Number(process.env.OIDC_ID_TOKEN_TTL || 600) },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  findAccount: (ctx, id) => ({
    accountId: id,
    claims: () => ({
      sub: id,
      ...(usernames.has(id) ? { preferred_username: usernames.get(id), name: usernames.get(id) } : {}),
    }),
  }),
});
provider.on('server_error', (ctx, err) => console.error('server_error', err));

function form(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => resolve(new URLSearchParams(body)));
    req.on('error', reject);
  });
}

// The browser's pages of the two steps: plain forms, for a test driving a real browser.
function page(uid, prompt) {
  const head = `<!doctype html><meta charset="utf-8"><title>Test provider: ${prompt}</title>`;
  if (prompt === 'login') {
    return `${head}<form id="login" method="post" action="/interaction/${uid}/login">
<label>Subject <input name="login" required></label>
<label>Username <input name="username"></label>
<button type="submit">Sign in</button></form>`;
  }
  return `${head}<form id="consent" method="post" action="/interaction/${uid}/confirm">
<p>Parlor asks for your profile.</p><button type="submit">Allow</button></form>`;
}

async function interaction(req, res) {
  const [, , uid, action] = new URL(req.url, issuer).pathname.split('/');
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) throw new Error('interaction mismatch');
  if (req.method === 'GET' && !action && (req.headers.accept || '').includes('text/html')) {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(page(uid, details.prompt.name));
    return;
  }
  if (req.method === 'GET' && !action) {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ uid, prompt: details.prompt.name }));
    return;
  }
  if (req.method === 'POST' && action === 'login') {
    const fields = await form(req);
    const login = fields.get('login');
    if (fields.get('username')) usernames.set(login, fields.get('username'));
    await provider.interactionFinished(req, res, { login: { accountId: login } }, {
      mergeWithLastSubmission: false,
    });
    return;
  }
  if (req.method === 'POST' && action === 'confirm') {
    const { params, session, prompt } = details;
    const grant = new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
    if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, {
      mergeWithLastSubmission: true,
    });
    return;
  }
  res.statusCode = 404;
  res.end();
}

const callback = provider.callback();
const server = http.createServer((req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => {
      res.statusCode = 400;
      res.end(String(err));
    });
    return;
  }
  callback(req, res);
});
server.listen(port, '127.0.0.1', () => console.log(`ready ${issuer}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
