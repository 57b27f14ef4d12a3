// A fake gateway for the unit tests: fetch answered by a function, every request recorded.
export function fakeFetch(answer) {
  const requests = [];
  const fetch = async (url, init = {}) => {
    const request = { url, method: init.method, headers: init.headers ?? {}, body: init.body ? JSON.parse(init.body) : undefined, signal: init.signal };
    requests.push(request);
    return answer(request, requests.length);
  };
  return { fetch, requests };
}

export function json(body, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

// A text/event-stream answer of these chunks; `hold` leaves the connection open after them
// (until the request is aborted), otherwise it ends, as a dropped connection does.
export function sse(chunks, { hold = false, signal } = {}) {
  const encoder = new TextEncoder();
  const body = new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      if (!hold) controller.close();
      else signal?.addEventListener("abort", () => controller.error(new DOMException("aborted", "AbortError")));
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

export function event(data, { id = "", event = "message" } = {}) {
  return `${id ? `id: ${id}\n` : ""}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function errorBody(status, reason, message, metadata = {}) {
  return {
    code: 0,
    status,
    message,
    reason,
    metadata,
    details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "parlor.dev", metadata }],
  };
}
