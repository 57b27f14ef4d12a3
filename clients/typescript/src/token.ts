// What a Parlor token (an EdDSA JWT) says about itself, read without checking its signature:
// the services check it; a client only wants its player id and when to refresh it.

interface Claims {
  sub?: string;
  exp?: number;
  name?: string;
}

function base64url(text: string): string {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** The token's claims, or {} when it is not a JWT. */
export function tokenClaims(token: string): Claims {
  try {
    const claims = JSON.parse(base64url(token.split(".")[1] ?? "")) as unknown;
    return claims && typeof claims === "object" ? (claims as Claims) : {};
  } catch {
    return {};
  }
}

/** The player id the token is for (its subject), "" when it has none. */
export function tokenPlayerId(token: string): string {
  return tokenClaims(token).sub ?? "";
}

/** When the token expires, in ms since the epoch: Infinity when it says nothing, 0 when unreadable. */
export function tokenExpiresAt(token: string): number {
  if (!token.includes(".")) return 0;
  const claims = tokenClaims(token);
  if (!("sub" in claims) && !("exp" in claims)) return 0;
  return typeof claims.exp === "number" ? claims.exp * 1000 : Infinity;
}

/** True when the token has expired (or cannot be read). */
export function tokenExpired(token: string, now = Date.now()): boolean {
  return tokenExpiresAt(token) <= now;
}
