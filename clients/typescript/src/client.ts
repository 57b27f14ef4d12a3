// ParlorClient: typed calls to every Parlor service through the web gateway, the token they
// carry, and the few things every client does: sign in as a guest, keep the token fresh,
// wait for a matchmaking ticket's game, watch a game.
import type { DescMethod, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import { ParlorError } from "./errors.js";
import { tokenExpiresAt, tokenPlayerId } from "./token.js";
import { Transport, type CallOptions, type StreamOptions, type TransportOptions } from "./transport.js";
import { DictionaryService } from "./gen/parlor/dictionary/v1/dictionary_pb.js";
import { IdentityService, type Account, type Session } from "./gen/parlor/identity/v1/identity_pb.js";
import { MatchmakingService, TicketStatus, type Ticket } from "./gen/parlor/matchmaking/v1/matchmaking_pb.js";
import { ScoringService } from "./gen/parlor/scoring/v1/scoring_pb.js";
import { ChatService } from "./gen/parlor/chat/v1/chat_pb.js";
import { TournamentService } from "./gen/parlor/tournaments/v1/tournaments_pb.js";
import { GAME_SERVICES } from "./games.js";

/** GetPlayers takes at most this many ids a call; `handles` asks in batches. */
export const MAX_PLAYERS_PER_CALL = 100;

/** The methods of a generated service (`typeof Connect4x4Service`). */
export type MethodsOf<T> = T extends GenService<infer S> ? S : never;

/** A request: the message, or any part of it (the rest takes the proto3 defaults). */
export type RequestOf<M extends GenServiceMethods[string]> = MessageInitShape<M["input"]>;
export type ResponseOf<M extends GenServiceMethods[string]> = MessageShape<M["output"]>;

/**
 * A service's methods, named as protoc-gen-es names them (lowerCamelCase): a unary method
 * returns a Promise of its response, a server-streaming one an async iterable of its messages.
 */
export type ServiceClient<S extends GenServiceMethods> = {
  [K in keyof S]: S[K]["methodKind"] extends "unary"
    ? (request?: RequestOf<S[K]>, options?: CallOptions) => Promise<ResponseOf<S[K]>>
    : S[K]["methodKind"] extends "server_streaming"
      ? (request?: RequestOf<S[K]>, options?: StreamOptions) => AsyncGenerator<ResponseOf<S[K]>, void, undefined>
      : never;
};

/** A game type, as matchmaking names it: a key of GAME_SERVICES (games.ts, from the registry). */
export type GameType = keyof typeof GAME_SERVICES;
type GameMethods<T extends GameType> = MethodsOf<(typeof GAME_SERVICES)[T]>;
/** A client of each game's service, by game type: `parlor.upwords.play(...)`. */
export type GameClients = { readonly [T in GameType]: ServiceClient<GameMethods<T>> };
/** What a game's WatchGame sends: the event, and the game after it as the viewer may see it. */
export type GameUpdate<T extends GameType> = ResponseOf<GameMethods<T>["watchGame"]>;

export interface ClientOptions extends Omit<TransportOptions, "token"> {
  /** The token to start with (a guest's from signInAsGuest, or `parlor token`'s). */
  token?: string;
  /** Called whenever the client's token changes (signed in, refreshed), e.g. to store it. */
  onToken?(token: string): void;
}

export interface WatchOptions extends StreamOptions {
  /** Resume after this version (0, the default: every event from the start). */
  afterVersion?: bigint;
  /**
   * A matched game is created by its service a moment after the match: until then the watch
   * is refused GAME_NOT_FOUND. Ask again for this long before giving up. Default 0.
   */
  waitForGameMs?: number;
  /** A private game's spectator invite (its seats are given it: GetGameResponse.spectatorInvite), for a watcher holding no seat. */
  invite?: string;
}

// The game clients are properties of ParlorClient (one per game of GAME_SERVICES), set in its
// constructor.
export interface ParlorClient extends GameClients {}

export class ParlorClient {
  readonly transport: Transport;
  readonly identity: ServiceClient<MethodsOf<typeof IdentityService>>;
  readonly matchmaking: ServiceClient<MethodsOf<typeof MatchmakingService>>;
  readonly scoring: ServiceClient<MethodsOf<typeof ScoringService>>;
  readonly chat: ServiceClient<MethodsOf<typeof ChatService>>;
  /** Tournaments (docs/tournaments.md): create, join, watch, export... */
  readonly tournaments: ServiceClient<MethodsOf<typeof TournamentService>>;
  readonly dictionary: ServiceClient<MethodsOf<typeof DictionaryService>>;
  private current: string;
  private readonly onToken?: (token: string) => void;

  constructor(options: ClientOptions = {}) {
    this.current = options.token ?? "";
    this.onToken = options.onToken;
    this.transport = new Transport({ ...options, token: () => this.current });
    this.identity = this.service(IdentityService);
    this.matchmaking = this.service(MatchmakingService);
    for (const [type, service] of Object.entries(GAME_SERVICES))
      (this as unknown as Record<string, unknown>)[type] = this.service(service as GenService<GenServiceMethods>);
    this.scoring = this.service(ScoringService);
    this.chat = this.service(ChatService);
    this.tournaments = this.service(TournamentService);
    this.dictionary = this.service(DictionaryService);
  }

  /** The bearer token sent with every call ("" when signed out). */
  get token(): string {
    return this.current;
  }
  set token(value: string) {
    this.current = value;
    this.onToken?.(value);
  }

  /** The player id of the token held (its subject), "" when signed out. */
  get playerId(): string {
    return tokenPlayerId(this.current);
  }

  /** A typed client of any generated service, e.g. one added after this package was built. */
  service<S extends GenServiceMethods>(service: GenService<S>): ServiceClient<S> {
    const methods: Record<string, unknown> = {};
    for (const method of (service as unknown as { methods: DescMethod[] }).methods) {
      if (method.methodKind === "unary")
        methods[method.localName] = (request?: unknown, options?: CallOptions) => this.transport.unary(method, request, options);
      else if (method.methodKind === "server_streaming")
        methods[method.localName] = (request?: unknown, options?: StreamOptions) => this.transport.stream(method, request, options);
    }
    return methods as ServiceClient<S>;
  }

  /** One unary method of a service by name: `call(UpwordsService, "pass", {gameId})`. */
  call<S extends GenServiceMethods, K extends keyof S & string>(
    service: GenService<S>,
    name: K,
    request?: RequestOf<S[K]>,
    options?: CallOptions,
  ): Promise<ResponseOf<S[K]>> {
    return this.transport.unary(service.method[name], request, options) as Promise<ResponseOf<S[K]>>;
  }

  /** One server-streaming method of a service by name, as an async iterable. */
  stream<S extends GenServiceMethods, K extends keyof S & string>(
    service: GenService<S>,
    name: K,
    request?: RequestOf<S[K]>,
    options?: StreamOptions,
  ): AsyncGenerator<ResponseOf<S[K]>, void, undefined> {
    return this.transport.stream(service.method[name], request, options) as AsyncGenerator<ResponseOf<S[K]>, void, undefined>;
  }

  /** The client of a game type's service: `game("upwords").play({...})`. */
  game<T extends GameType>(type: T): ServiceClient<GameMethods<T>> {
    return (this as GameClients)[type] as unknown as ServiceClient<GameMethods<T>>;
  }

  /**
   * Sign in as a guest (IdentityService.IssueGuestToken): the client holds the token after.
   * Guest tokens are rate-limited per address; a refusal that says when to retry is retried
   * (3 times unless options.retries says otherwise).
   */
  async signInAsGuest(displayName: string, options?: CallOptions): Promise<{ token: string; playerId: string }> {
    const reply = await this.identity.issueGuestToken({ displayName }, { retries: 3, ...options });
    this.token = reply.token;
    return { token: reply.token, playerId: reply.playerId };
  }

  /** A fresh token for the session (IdentityService.RefreshToken), held from then on. */
  async refreshToken(options?: CallOptions): Promise<string> {
    const reply = await this.identity.refreshToken({}, options);
    this.token = reply.token;
    return reply.token;
  }

  // -- accounts (docs/accounts.md): sign-in through an OpenID Connect provider ---------------

  /**
   * Begin an account's sign-in with a provider (IdentityService.BeginSignIn, no token
   * needed): the provider's URL to send the player's browser to, and the state its redirect
   * to `redirectUri` (one configured for the provider) must carry back. Keep the state and
   * complete only a redirect carrying it: any other is someone else's sign-in. In a browser
   * served by the web gateway, link to `signInUrl(provider)` instead: the gateway does this
   * and keeps the session in a cookie no script can read.
   */
  beginSignIn(provider: string, redirectUri: string, options?: CallOptions): Promise<ResponseOf<MethodsOf<typeof IdentityService>["beginSignIn"]>> {
    return this.identity.beginSignIn({ provider, redirectUri }, options);
  }

  /**
   * Complete it with the redirect's `state`, `code` and `iss` (IdentityService.CompleteSignIn):
   * the account, its access token (held from then on) and its refresh token. Never retried:
   * a state is used once.
   */
  async completeSignIn(
    answer: { state: string; code: string; iss?: string },
    options?: CallOptions,
  ): Promise<ResponseOf<MethodsOf<typeof IdentityService>["completeSignIn"]>> {
    const reply = await this.identity.completeSignIn({ state: answer.state, code: answer.code, iss: answer.iss ?? "" }, { ...options, retries: 0 });
    this.token = reply.accessToken;
    return reply;
  }

  /**
   * The next access token (held from then on) and refresh token of an account's session
   * (IdentityService.RenewSession); `refreshToken` is spent. Never retried: a refresh token
   * sent twice looks stolen, and the service then ends the whole session.
   */
  async renewSession(refreshToken: string, options?: CallOptions): Promise<ResponseOf<MethodsOf<typeof IdentityService>["renewSession"]>> {
    const reply = await this.identity.renewSession({ refreshToken }, { ...options, retries: 0 });
    this.token = reply.accessToken;
    return reply;
  }

  /** End the session `refreshToken` belongs to (IdentityService.SignOut); the client holds no token after. */
  async signOut(refreshToken: string, options?: CallOptions): Promise<void> {
    await this.identity.signOut({ refreshToken }, options);
    this.token = "";
  }

  /** The signed-in account (a guest's token: FAILED_PRECONDITION NOT_AN_ACCOUNT). */
  async account(options?: CallOptions): Promise<Account | undefined> {
    return (await this.identity.getAccount({}, options)).account;
  }

  /** Choose the account's handle; refused with its reason (HANDLE_TAKEN, HANDLE_RESERVED...). */
  async setHandle(handle: string, options?: CallOptions): Promise<Account | undefined> {
    return (await this.identity.setHandle({ handle }, options)).account;
  }

  /**
   * Make a built-in account with a handle and a password (IdentityService.SignUpWithPassword;
   * the platform must have PARLOR_PASSWORD_ACCOUNTS on, else FAILED_PRECONDITION
   * PASSWORD_ACCOUNTS_DISABLED): its tokens, as completeSignIn answers; the access token is
   * held from then on. Never retried: a lost reply would come back as HANDLE_TAKEN. In a
   * browser served by the web gateway, post to its /auth/password route instead (docs/web.md):
   * it keeps the refresh token in a cookie no script can read.
   */
  async signUpWithPassword(
    account: { handle: string; password: string; displayName?: string; client?: string },
    options?: CallOptions,
  ): Promise<ResponseOf<MethodsOf<typeof IdentityService>["signUpWithPassword"]>> {
    const reply = await this.identity.signUpWithPassword(
      { handle: account.handle, password: account.password, displayName: account.displayName ?? "", client: account.client ?? "" },
      { ...options, retries: 0 },
    );
    this.token = reply.accessToken;
    return reply;
  }

  /**
   * Sign into a built-in account (IdentityService.SignInWithPassword): every wrong answer is
   * UNAUTHENTICATED SIGN_IN_FAILED, guessing is slowed then RESOURCE_EXHAUSTED SIGN_IN_LOCKED.
   * Never retried: each attempt counts towards the handle's lock-out.
   */
  async signInWithPassword(
    account: { handle: string; password: string; client?: string },
    options?: CallOptions,
  ): Promise<ResponseOf<MethodsOf<typeof IdentityService>["signInWithPassword"]>> {
    const reply = await this.identity.signInWithPassword(
      { handle: account.handle, password: account.password, client: account.client ?? "" },
      { ...options, retries: 0 },
    );
    this.token = reply.accessToken;
    return reply;
  }

  /**
   * The signed-in account takes over the guest of `guestToken` (IdentityService.ClaimGuest),
   * the guest's own still valid token: holding it is the proof. Once, ever (ALREADY_EXISTS
   * GUEST_CLAIMED); never retried, since a lost reply would come back as that refusal.
   */
  async claimGuest(guestToken: string, options?: CallOptions): Promise<ResponseOf<MethodsOf<typeof IdentityService>["claimGuest"]>> {
    return this.identity.claimGuest({ guestToken }, { ...options, retries: 0 });
  }

  /** A short-lived token for a guest id this account claimed, to play on in its games (IdentityService.IssueClaimedGuestToken). */
  async claimedGuestToken(guestId: string, options?: CallOptions): Promise<string> {
    return (await this.identity.issueClaimedGuestToken({ guestId }, options)).token;
  }

  /** The account's open sessions, newest first, never their tokens (IdentityService.ListSessions). */
  async sessions(options?: CallOptions): Promise<Session[]> {
    return (await this.identity.listSessions({}, options)).sessions;
  }

  /** Revoke every session of the account (IdentityService.SignOutEverywhere); how many were open. */
  async signOutEverywhere(options?: CallOptions): Promise<number> {
    return (await this.identity.signOutEverywhere({}, options)).revoked;
  }

  /**
   * Erase the account for good (IdentityService.EraseAccount; `playerId` for an admin's
   * erasure of another): closed, sessions revoked, personal data crypto-shredded. The client
   * holds no token after. Never retried: a second erasure is FAILED_PRECONDITION ACCOUNT_ERASED.
   */
  async eraseAccount(playerId = "", options?: CallOptions): Promise<void> {
    await this.identity.eraseAccount({ playerId }, { ...options, retries: 0 });
    if (!playerId) this.token = "";
  }

  /**
   * The handle of each of these players that has one (IdentityService.GetPlayers, 100 ids a
   * call), for showing players: games and tokens name an account by its player id. Guests,
   * bots and accounts without a handle are not in the map.
   */
  async handles(playerIds: Iterable<string>, options?: CallOptions): Promise<Map<string, string>> {
    const wanted = [...new Set(playerIds)];
    const found = new Map<string, string>();
    for (let i = 0; i < wanted.length; i += MAX_PLAYERS_PER_CALL) {
      const { players } = await this.identity.getPlayers({ playerIds: wanted.slice(i, i + MAX_PLAYERS_PER_CALL) }, options);
      for (const p of players) if (p.handle) found.set(p.playerId, p.handle);
    }
    return found;
  }

  /** Where a browser begins a sign-in at the web gateway (its /auth/sign-in route, docs/web.md). */
  signInUrl(provider: string): string {
    return `${this.transport.baseUrl}/auth/sign-in?provider=${encodeURIComponent(provider)}`;
  }

  /**
   * Tokens are short-lived: refresh the one held a while before it expires (5 minutes, or
   * half its life when shorter), for as long as the server allows. Returns a stop function.
   */
  keepTokenFresh(onError?: (error: unknown) => void): () => void {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const schedule = () => {
      const left = tokenExpiresAt(this.current) - Date.now();
      if (stopped || !Number.isFinite(left) || left <= 0) return; // no expiry, or gone
      timer = setTimeout(
        async () => {
          try {
            await this.refreshToken();
            schedule();
          } catch (e) {
            onError?.(e); // refused (the session is too old) or unreachable: the next call says so
          }
        },
        Math.min(Math.max(left - 5 * 60_000, left / 2, 1000), 2 ** 31 - 1),
      );
      (timer as { unref?: () => void }).unref?.(); // never keeps Node running by itself
    };
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  /**
   * Follow a matchmaking ticket (WatchTicket) until it is matched: the matched ticket, whose
   * matchId is the game id in its game type's service and seat is yours. A ticket that is
   * cancelled, expires, is withdrawn or ends with its lobby (its host left) ends it with a
   * ParlorError (reason TICKET_<STATUS>: TICKET_CANCELLED, ..., TICKET_LOBBY_CLOSED).
   */
  async waitForMatch(ticketId: string, options: StreamOptions = {}): Promise<Ticket> {
    for await (const { ticket } of this.matchmaking.watchTicket({ ticketId }, options)) {
      if (!ticket) continue;
      if (ticket.status === TicketStatus.MATCHED && ticket.matchId) return ticket;
      if (ticket.status !== TicketStatus.WAITING && ticket.status !== TicketStatus.UNSPECIFIED && ticket.status !== TicketStatus.MATCHED) {
        const name = TicketStatus[ticket.status] ?? String(ticket.status);
        throw new ParlorError("FAILED_PRECONDITION", `TICKET_${name}`, `the ticket was ${name.toLowerCase()}`, { ticketId });
      }
    }
    throw new ParlorError("CANCELLED", "", "the ticket's watch ended before a match");
  }

  /**
   * Abort a game another seat has not started (AbortGame), for your seat (`seat`: which, if
   * you hold several): when some other seat has not made its first move though its clock has
   * run the game type's abort window; it ends unrated and with no result (`game.aborted`), and
   * the other seats see it on their watch. Refused FAILED_PRECONDITION ABORT_TOO_LATE once
   * every seat has moved, ABORT_OWN_FIRST_MOVE while the game waits for your first move,
   * ABORT_NOT_YET before the window (metadata retry_after_seconds); RESOURCE_EXHAUSTED
   * TOO_MANY_ABORTS past the daily limit. A command id is made, so a retry after a lost answer
   * is safe.
   */
  abortGame<T extends GameType>(
    type: T,
    gameId: string,
    options: CallOptions & { seat?: number; commandId?: string } = {},
  ): Promise<ResponseOf<GameMethods<T>["abortGame"]>> {
    return this.seatCommand(type, "abortGame", gameId, options);
  }

  /**
   * Go berserk in an arena tournament's game (BerserkGame), for your seat (`seat`: which, if
   * you hold several), before your first move: your clock is halved and gains no increment,
   * and a win of at least the arena's minimum number of moves scores one point more
   * (docs/tournaments.md). Refused FAILED_PRECONDITION BERSERK_NOT_ALLOWED (not an arena's
   * game that allows it, or untimed), BERSERK_TOO_LATE once you have moved, ALREADY_BERSERK.
   * A command id is made, so a retry after a lost answer is safe.
   */
  berserkGame<T extends GameType>(
    type: T,
    gameId: string,
    options: CallOptions & { seat?: number; commandId?: string } = {},
  ): Promise<ResponseOf<GameMethods<T>["berserkGame"]>> {
    return this.seatCommand(type, "berserkGame", gameId, options);
  }

  /** A game's command for the caller's seat (`seat`: which, if several) with a command id. */
  private seatCommand<T extends GameType, M extends "abortGame" | "berserkGame">(
    type: T,
    name: M,
    gameId: string,
    options: CallOptions & { seat?: number; commandId?: string },
  ): Promise<ResponseOf<GameMethods<T>[M]>> {
    const { seat, commandId, ...call } = options;
    const method = (GAME_SERVICES[type] as GenService<GenServiceMethods>).method[name];
    const request = { gameId, commandId: commandId ?? globalThis.crypto.randomUUID(), ...(seat === undefined ? {} : { seat }) };
    return this.transport.unary(method, request, call) as Promise<ResponseOf<GameMethods<T>[M]>>;
  }

  /**
   * A game as it happens (WatchGame): every event from afterVersion on, each with the game
   * after it as you may see it, until the game ends; reconnects and resumes by itself.
   */
  async *watchGame<T extends GameType>(type: T, gameId: string, options: WatchOptions = {}): AsyncGenerator<GameUpdate<T>, void, undefined> {
    const deadline = Date.now() + (options.waitForGameMs ?? 0);
    let after = options.afterVersion ?? 0n;
    for (;;) {
      try {
        const method = (GAME_SERVICES[type] as GenService<GenServiceMethods>).method["watchGame"];
        for await (const update of this.transport.stream(method, { gameId, afterVersion: after, invite: options.invite ?? "" }, options)) {
          const version = (update as { event?: { info?: { version: bigint } } }).event?.info?.version;
          if (version !== undefined) after = version;
          yield update as GameUpdate<T>;
        }
        return;
      } catch (e) {
        if (!(e instanceof ParlorError && e.reason === "GAME_NOT_FOUND" && Date.now() < deadline) || options.signal?.aborted) throw e;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
