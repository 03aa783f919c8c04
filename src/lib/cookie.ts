/** The session token lives in a cookie, as the spec says; SameSite=Strict keeps it off cross-site requests. */
const tokenCookie = 'Admin-Token';

export function getToken(): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === tokenCookie) return decodeURIComponent(rest.join('=')) || undefined;
  }
  return undefined;
}

export function setToken(token: string): void {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every supported browser
  document.cookie = `${tokenCookie}=${encodeURIComponent(token)}; Path=/; SameSite=Strict${secure}`;
}

export function removeToken(): void {
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every supported browser
  document.cookie = `${tokenCookie}=; Path=/; Max-Age=0; SameSite=Strict`;
}
