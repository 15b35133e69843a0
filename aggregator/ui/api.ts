/** Who is signed in, and the secret every change must carry. */
export interface Me {
  identity: string;
  approver: boolean;
  workspaces?: string[];
  csrf: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function answer<T>(response: Response): Promise<T> {
  if (response.status === 401) {
    window.location.assign('/ui/login');
    throw new ApiError(401, 'Signed out: sign in again.');
  }
  const body = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok)
    throw new ApiError(response.status, body.error ?? `The server answered ${response.status}.`);
  return body as T;
}

export async function getJson<T>(path: string): Promise<T> {
  return answer<T>(await fetch(`/ui/api${path}`, { headers: { accept: 'application/json' } }));
}

export async function postJson<T>(me: Me, path: string, body: unknown): Promise<T> {
  return answer<T>(
    await fetch(`/ui/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf },
      body: JSON.stringify(body),
    }),
  );
}
