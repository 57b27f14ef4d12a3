// The one client of the bridge: any RPC of any generated service, unary as JSON, server
// streams as Server-Sent Events read with fetch (so the bearer token can be sent), resumed
// with Last-Event-ID after a dropped connection. Messages are the proto3 JSON mapping,
// read and written with the schemas protoc-gen-es generated from protos/.
import { fromJson, toJson, create, type JsonValue, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";

export class ApiError extends Error {
  constructor(
    readonly status: string, // the gRPC code's name, e.g. FAILED_PRECONDITION
    readonly reason: string, // ErrorInfo reason, e.g. COLUMN_FULL
    message: string,
    readonly metadata: Record<string, string> = {},
  ) {
    super(message);
  }
}

let token = "";
export function setToken(value: string): void {
  token = value;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { "content-type": "application/json", ...extra };
  if (token) h["authorization"] = `Bearer ${token}`;
  return h;
}

function errorOf(body: unknown, fallback: string): ApiError {
  const b = (body ?? {}) as { status?: string; reason?: string; message?: string; metadata?: Record<string, string> };
  return new ApiError(b.status ?? "UNKNOWN", b.reason ?? "", b.message || fallback, b.metadata ?? {});
}

function url(service: { typeName: string }, method: { name: string }): string {
  return `/api/${service.typeName}/${method.name}`;
}

export async function unary<S extends GenServiceMethods, K extends keyof S & string>(
  service: GenService<S>,
  name: K,
  init: MessageInitShape<S[K]["input"]>,
): Promise<MessageShape<S[K]["output"]>> {
  const method = service.method[name];
  const body = JSON.stringify(toJson(method.input, create(method.input, init)));
  let response: Response;
  try {
    response = await fetch(url(service, method), { method: "POST", headers: headers(), body });
  } catch (e) {
    throw new ApiError("UNAVAILABLE", "NETWORK", `the server cannot be reached (${e})`);
  }
  const json = (await response.json().catch(() => ({}))) as JsonValue;
  if (!response.ok) throw errorOf(json, `HTTP ${response.status}`);
  return fromJson(method.output, json, { ignoreUnknownFields: true }) as MessageShape<S[K]["output"]>;
}

type Outcome = "go on" | "done" | "again";
const TRANSIENT = new Set(["UNAVAILABLE", "CANCELLED", "ABORTED", "DEADLINE_EXCEEDED"]);

export interface Stream {
  close(): void;
}

export interface StreamHandlers<T> {
  message(item: T): void;
  error?(error: ApiError): void;
  end?(): void;
  // Called when the connection drops and again when it is back.
  connection?(up: boolean): void;
}

// Follows a server stream; reconnects after a network failure, resuming after the last id.
export function stream<S extends GenServiceMethods, K extends keyof S & string>(
  service: GenService<S>,
  name: K,
  init: MessageInitShape<S[K]["input"]>,
  handlers: StreamHandlers<MessageShape<S[K]["output"]>>,
): Stream {
  const method = service.method[name];
  const body = JSON.stringify(toJson(method.input, create(method.input, init)));
  const controller = new AbortController();
  let lastId = "";
  let closed = false;
  let delay = 500;

  // "go on" reading, "done" (ended or refused), or "again": a transient failure upstream (a
  // service restarting), so reconnect and resume like after a dropped connection.
  const dispatch = (event: string, data: string, id: string): Outcome => {
    if (id) lastId = id;
    if (event === "message") {
      const item = fromJson(method.output, JSON.parse(data) as JsonValue, { ignoreUnknownFields: true });
      handlers.message(item as MessageShape<S[K]["output"]>);
      return "go on";
    }
    if (event === "error") {
      const error = errorOf(JSON.parse(data), "the stream failed");
      if (TRANSIENT.has(error.status)) return "again";
      handlers.error?.(error);
      return "done";
    }
    if (event === "end") {
      handlers.end?.();
      return "done";
    }
    return "go on";
  };

  const run = async (): Promise<void> => {
    while (!closed) {
      let finished = false;
      try {
        const extra: Record<string, string> = { accept: "text/event-stream" };
        if (lastId) extra["last-event-id"] = lastId;
        const response = await fetch(url(service, method), {
          method: "POST",
          headers: headers(extra),
          body,
          signal: controller.signal,
        });
        if (!response.ok || !response.body) {
          const error = errorOf(await response.json().catch(() => ({})), `HTTP ${response.status}`);
          if (!TRANSIENT.has(error.status) && response.status < 502) {
            handlers.error?.(error);
            return;
          }
          throw error; // a gateway or service not there for a moment: try again below
        }
        handlers.connection?.(true);
        delay = 500;
        finished = (await readEvents(response.body, dispatch)) === "done";
      } catch (e) {
        if (closed) return;
      }
      if (finished || closed) return;
      handlers.connection?.(false);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 8000);
    }
  };
  void run();
  return {
    close() {
      closed = true;
      controller.abort();
    },
  };
}

// Parses text/event-stream until the connection ends ("again") or an event says otherwise.
async function readEvents(
  body: ReadableStream<Uint8Array>,
  dispatch: (event: string, data: string, id: string) => Outcome,
): Promise<Outcome> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return "again";
    buffer += decoder.decode(value, { stream: true });
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
      const outcome = data.length ? dispatch(event, data.join("\n"), id) : "go on";
      if (outcome !== "go on") {
        await reader.cancel().catch(() => undefined);
        return outcome;
      }
    }
  }
}
