// The web client's one connection to the bridge: @parlor/client (clients/typescript), the
// same package any TypeScript client of Parlor uses, on the page's own origin. Unary calls
// are promises; server streams are the package's async iterables, handed to callbacks here
// for the pages (a message, the end, a refusal, the connection dropping and coming back).
import {
  ParlorClient,
  ParlorError,
  type GenService,
  type GenServiceMethods,
  type MessageInitShape,
  type MessageShape,
} from "@parlor/client";

export { ParlorError as ApiError };

export const parlor = new ParlorClient(); // baseUrl "": the gateway that served the page

export function setToken(value: string): void {
  parlor.token = value;
}

export function unary<S extends GenServiceMethods, K extends keyof S & string>(
  service: GenService<S>,
  name: K,
  init: MessageInitShape<S[K]["input"]>,
): Promise<MessageShape<S[K]["output"]>> {
  return parlor.call(service, name, init);
}

export interface Stream {
  close(): void;
}

export interface StreamHandlers<T> {
  message(item: T): void;
  error?(error: ParlorError): void;
  end?(): void;
  // Called when the connection drops and again when it is back.
  connection?(up: boolean): void;
}

// Follows a server stream; the package reconnects after a network failure, resuming after
// the last id, so the handlers see every message once.
export function stream<S extends GenServiceMethods, K extends keyof S & string>(
  service: GenService<S>,
  name: K,
  init: MessageInitShape<S[K]["input"]>,
  handlers: StreamHandlers<MessageShape<S[K]["output"]>>,
): Stream {
  const controller = new AbortController();
  const { signal } = controller;
  void (async () => {
    try {
      for await (const item of parlor.stream(service, name, init, { signal, onConnection: (up) => handlers.connection?.(up) })) {
        handlers.message(item);
      }
      if (!signal.aborted) handlers.end?.();
    } catch (e) {
      if (!signal.aborted) handlers.error?.(e instanceof ParlorError ? e : new ParlorError("UNKNOWN", "", String(e)));
    }
  })();
  return { close: () => controller.abort() };
}
