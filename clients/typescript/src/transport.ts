// The web gateway's wire (libs/webgateway, docs/web.md): POST /api/<package.Service>/<Method>
// with the request in the proto3 JSON mapping; a unary call answers JSON, a server stream
// answers Server-Sent Events (read with fetch, so the bearer token can be sent), resumed with
// Last-Event-ID after a dropped connection. Messages are read and written with the schemas
// protoc-gen-es generated from protos/.
import { create, fromJson, toJson, type DescMethod, type JsonValue } from "@bufbuild/protobuf";
import { errorFromBody, NETWORK, ParlorError } from "./errors.js";

export interface TransportOptions {
  /** Where the gateway is: "" (the page's own origin, in a browser), or e.g. "http://localhost:8080". */
  baseUrl?: string;
  /** The bearer token to send, asked for at every call. */
  token?: () => string;
  /** fetch to use (the global one by default). */
  fetch?: typeof fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Send again after a transient failure (UNAVAILABLE and the like) this many times, waiting
   * 0.5 s, then 1 s, ..., and after a rate limit's refusal (RESOURCE_EXHAUSTED) as long as
   * it says. Parlor's commands carry a commandId, so sending one again is safe: the service
   * answers a repeated command with the first answer. Default 0.
   */
  retries?: number;
}

export interface StreamOptions {
  signal?: AbortSignal;
  /** Reconnect (resuming after the last event id) when the connection drops. Default true. */
  reconnect?: boolean;
  /** Resume after this event id (a stream's version), as after a dropped connection. */
  lastEventId?: string;
  /** Called with true each time the stream is connected, with false when it dropped. */
  onConnection?(up: boolean): void;
  /** The first wait before reconnecting, doubled up to maxDelayMs. Default 500. */
  delayMs?: number;
  /** Default 8000. */
  maxDelayMs?: number;
}

interface SseEvent {
  event: string;
  data: string;
  id: string;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

export class Transport {
  readonly baseUrl: string;
  private readonly token: () => string;
  private readonly fetcher: typeof fetch;

  constructor(options: TransportOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "").replace(/\/+$/, "");
    this.token = options.token ?? (() => "");
    const f = options.fetch ?? globalThis.fetch;
    if (!f) throw new Error("@parlor/client needs fetch (Node.js 18+ or a browser), or options.fetch");
    this.fetcher = (input, init) => f(input, init);
  }

  url(method: DescMethod): string {
    return `${this.baseUrl}/api/${method.parent.typeName}/${method.name}`;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { "content-type": "application/json", ...extra };
    const token = this.token();
    if (token) h["authorization"] = `Bearer ${token}`;
    return h;
  }

  private body(method: DescMethod, request: unknown): string {
    // create() fills the defaults of a partial init and keeps a message as it is
    return JSON.stringify(toJson(method.input, create(method.input, (request ?? {}) as never)));
  }

  /** A unary call: the response message, or a ParlorError. */
  async unary(method: DescMethod, request: unknown, options: CallOptions = {}): Promise<unknown> {
    const body = this.body(method, request);
    let delay = 500;
    for (let attempt = 0; ; attempt++) {
      let wait: number;
      try {
        return await this.once(method, body, options.signal);
      } catch (e) {
        const limited = e instanceof ParlorError && e.status === "RESOURCE_EXHAUSTED" ? e.retryAfterMs : undefined;
        if (!(e instanceof ParlorError) || !(e.transient || limited !== undefined) || attempt >= (options.retries ?? 0) || options.signal?.aborted) throw e;
        wait = limited ?? delay;
      }
      await sleep(wait, options.signal ?? new AbortController().signal);
      delay = Math.min(delay * 2, 8000);
    }
  }

  private async once(method: DescMethod, body: string, signal?: AbortSignal): Promise<unknown> {
    let response: Response;
    try {
      response = await this.fetcher(this.url(method), { method: "POST", headers: this.headers(), body, signal });
    } catch (e) {
      if (signal?.aborted) throw new ParlorError("CANCELLED", "", "the call was cancelled");
      throw new ParlorError("UNAVAILABLE", NETWORK, `the server cannot be reached (${e})`);
    }
    const json = (await response.json().catch(() => ({}))) as JsonValue;
    if (!response.ok) throw errorFromBody(json, response.status);
    return fromJson(method.output, json, { ignoreUnknownFields: true });
  }

  /**
   * A server stream as an async iterable of its messages. It ends when the server ends the
   * stream, throws a ParlorError when the server refuses or fails it, and reconnects by itself
   * after a dropped connection or a transient failure (a service restarting), resuming after
   * the last event it saw, so no message is missed or repeated. Stop early with `break` or
   * options.signal.
   */
  async *stream(method: DescMethod, request: unknown, options: StreamOptions = {}): AsyncGenerator<unknown, void, undefined> {
    const body = this.body(method, request);
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (options.signal?.aborted) return;
    options.signal?.addEventListener("abort", abort, { once: true });
    const signal = controller.signal;
    const first = options.delayMs ?? 500;
    let lastId = options.lastEventId ?? "";
    let delay = first;
    try {
      for (;;) {
        let response: Response | undefined;
        try {
          const extra: Record<string, string> = { accept: "text/event-stream" };
          if (lastId) extra["last-event-id"] = lastId;
          response = await this.fetcher(this.url(method), { method: "POST", headers: this.headers(extra), body, signal });
        } catch {
          if (signal.aborted) return;
          response = undefined; // the network: try again below
        }
        if (response && (!response.ok || !response.body)) {
          const error = errorFromBody(await response.json().catch(() => ({})), response.status);
          // a gateway or service not there for a moment is tried again; anything else is final
          if (!error.transient && response.status < 502) throw error;
        } else if (response?.body) {
          options.onConnection?.(true);
          delay = first;
          try {
            for await (const event of readEvents(response.body)) {
              if (event.id) lastId = event.id;
              if (event.event === "message") {
                yield fromJson(method.output, JSON.parse(event.data) as JsonValue, { ignoreUnknownFields: true });
              } else if (event.event === "error") {
                const error = errorFromBody(JSON.parse(event.data), 200, "the stream failed");
                if (!error.transient) throw error;
                break; // resume like after a dropped connection
              } else if (event.event === "end") {
                return;
              }
            }
          } catch (e) {
            if (e instanceof ParlorError) throw e;
            if (signal.aborted) return;
            // the connection dropped: resume below
          }
        }
        if (signal.aborted) return;
        if (options.reconnect === false) throw new ParlorError("UNAVAILABLE", NETWORK, "the stream's connection was lost");
        options.onConnection?.(false);
        await sleep(delay, signal);
        if (signal.aborted) return;
        delay = Math.min(delay * 2, options.maxDelayMs ?? 8000);
      }
    } finally {
      options.signal?.removeEventListener("abort", abort);
      controller.abort(); // an early break closes the connection
    }
  }
}

/** text/event-stream's events, until the connection ends. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer = (buffer + decoder.decode(value, { stream: true })).replace(/\r\n/g, "\n");
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let event = "message";
        let id = "";
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const val = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") event = val;
          else if (field === "data") data.push(val);
          else if (field === "id") id = val;
        }
        if (data.length) yield { event, data: data.join("\n"), id };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
