// A refused or failed call as one typed error: the gRPC status, and the google.rpc.ErrorInfo
// the service attached (its stable reason, e.g. NOT_YOUR_TURN, and metadata), as the web
// gateway sends them in its JSON error body.

/** The gRPC status codes by name, as the gateway writes them in an error's `status`. */
export type StatusName =
  | "OK"
  | "CANCELLED"
  | "UNKNOWN"
  | "INVALID_ARGUMENT"
  | "DEADLINE_EXCEEDED"
  | "NOT_FOUND"
  | "ALREADY_EXISTS"
  | "PERMISSION_DENIED"
  | "RESOURCE_EXHAUSTED"
  | "FAILED_PRECONDITION"
  | "ABORTED"
  | "OUT_OF_RANGE"
  | "UNIMPLEMENTED"
  | "INTERNAL"
  | "UNAVAILABLE"
  | "DATA_LOSS"
  | "UNAUTHENTICATED";

const CODES: StatusName[] = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
];

/** The reason this client gives a call that never reached the gateway. */
export const NETWORK = "NETWORK";

/** The domain of Parlor's own ErrorInfo reasons. */
export const PARLOR_DOMAIN = "parlor.dev";

/** One detail of google.rpc.Status in its JSON form (`@type` names the message). */
export interface ErrorDetail {
  "@type"?: string;
  [field: string]: unknown;
}

export class ParlorError extends Error {
  override name = "ParlorError";

  constructor(
    /** The gRPC code's name, e.g. FAILED_PRECONDITION. */
    readonly status: StatusName,
    /** ErrorInfo's reason, e.g. COLUMN_FULL ("" when the service attached none). */
    readonly reason: string,
    message: string,
    /** ErrorInfo's metadata, e.g. {"column": "3"}. */
    readonly metadata: Readonly<Record<string, string>> = {},
    /** ErrorInfo's domain: "parlor.dev" for Parlor's reasons, "" when there is no ErrorInfo. */
    readonly domain: string = "",
    /** Every detail of the google.rpc.Status, ErrorInfo included. */
    readonly details: readonly ErrorDetail[] = [],
    /** The HTTP status the gateway answered with (0: no answer). */
    readonly httpStatus = 0,
  ) {
    super(message);
  }

  /** The gRPC code as a number (google.rpc.Code). */
  get code(): number {
    return CODES.indexOf(this.status);
  }

  /** Worth trying again: the service or the network was away for a moment. */
  get transient(): boolean {
    return TRANSIENT.has(this.status);
  }

  /**
   * How long to wait before trying again, when the service said (a rate limit's
   * RESOURCE_EXHAUSTED: ErrorInfo metadata retry_after_seconds, or a google.rpc.RetryInfo).
   */
  get retryAfterMs(): number | undefined {
    const seconds = Number(this.metadata["retry_after_seconds"]);
    if (this.metadata["retry_after_seconds"] !== undefined && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const info = this.details.find((d) => d["@type"] === RETRY_INFO) as { retryDelay?: string } | undefined;
    const delay = /^(\d+(?:\.\d+)?)s$/.exec(info?.retryDelay ?? "");
    return delay ? Number(delay[1]) * 1000 : undefined;
  }

  /** `message (REASON)`, as a person would be shown it. */
  describe(): string {
    return this.reason ? `${this.message} (${this.reason})` : this.message;
  }
}

export const TRANSIENT: ReadonlySet<StatusName> = new Set<StatusName>(["UNAVAILABLE", "CANCELLED", "ABORTED", "DEADLINE_EXCEEDED"]);

/**
 * The ErrorInfo metadata key naming the reason a refusal had before it was renamed, kept for a
 * deprecation period (Upwords' BAD_NOTATION is now INVALID_NOTATION, the reason of every game).
 */
export const DEPRECATED_REASON = "deprecated_reason";

/**
 * True when `error` is a ParlorError, with that reason when one is given (its reason, or the
 * name that reason had before it was renamed: ErrorInfo metadata deprecated_reason).
 */
export function isParlorError(error: unknown, reason?: string): error is ParlorError {
  return (
    error instanceof ParlorError &&
    (reason === undefined || error.reason === reason || error.metadata[DEPRECATED_REASON] === reason)
  );
}

// google.api.http's mapping backwards, for an answer without a JSON error body (a proxy's).
function statusOfHttp(httpStatus: number): StatusName {
  switch (httpStatus) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "ABORTED";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 499:
      return "CANCELLED";
    case 501:
      return "UNIMPLEMENTED";
    case 502:
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return "UNKNOWN";
  }
}

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";

/** The gateway's error body (google.rpc.Status as JSON, plus status, reason and metadata). */
export function errorFromBody(body: unknown, httpStatus: number, fallback = `HTTP ${httpStatus}`): ParlorError {
  const b = (body && typeof body === "object" ? body : {}) as {
    status?: string;
    reason?: string;
    message?: string;
    metadata?: Record<string, string>;
    details?: ErrorDetail[];
  };
  const status = CODES.includes(b.status as StatusName) ? (b.status as StatusName) : statusOfHttp(httpStatus);
  const details = Array.isArray(b.details) ? b.details : [];
  const info = details.find((d) => d["@type"] === ERROR_INFO) as
    | { reason?: string; domain?: string; metadata?: Record<string, string> }
    | undefined;
  return new ParlorError(
    status,
    b.reason ?? info?.reason ?? "",
    b.message || fallback,
    b.metadata ?? info?.metadata ?? {},
    info?.domain ?? "",
    details,
    httpStatus,
  );
}
