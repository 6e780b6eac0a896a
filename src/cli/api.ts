/** Where the CLI finds a running gateway, and as whom it calls it. */
export interface ApiTarget {
  url: string;
  key: string | undefined;
}

/** An API answer the CLI cannot use: its status and the error the gateway gave. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Calls the gateway's API; the parsed JSON body, or an ApiFailure saying what went wrong. */
export async function callApi(target: ApiTarget, method: string, path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = {};
  if (target.key) headers.authorization = `Bearer ${target.key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(new URL(path, target.url), {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    throw new ApiFailure(0, `cannot reach hearth at ${target.url}: ${cause} (set HEARTH_URL or --url)`);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a plain-text answer (USSD, health in some proxies): kept as text
  }
  if (!res.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } }).error;
    const hint = res.status === 401 ? ' (set HEARTH_API_KEY or --api-key to an admin key)' : '';
    throw new ApiFailure(res.status, `${res.status} ${error?.code ?? ''}: ${error?.message ?? text}${hint}`.trim());
  }
  return parsed;
}
