const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The page a refused sign-in shows: what went wrong, and the ways on. No session was made. */
export function refusedPage(reason: string, publicUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in refused · Orbit</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.4rem}p.reason{padding:.75rem 1rem;border-left:4px solid #c62828;background:#fdecea}</style></head>
<body><main>
<h1>Sign-in refused</h1>
<p class="reason" role="alert">${escape(reason)}</p>
<p>You are not signed in. <a href="${escape(publicUrl)}/auth/login">Start the sign-in again</a>
or go <a href="${escape(publicUrl)}/ui/">back to Orbit</a>.</p>
</main></body></html>
`;
}
