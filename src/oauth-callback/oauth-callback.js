// Skiff's OAuth redirect URI (extras/oauth-callback.html): the authorization server sends the
// browser here with `?code=…&state=…` (or `?error=…`). This page decides nothing: it hands the
// URL to the Skiff tab that started the sign-in (runner::oauth::callback), where the machine
// checks state and issuer. A document of its own because the browser lands here, not in the app.
//
// - Opened as a popup: the answer goes over a same-origin BroadcastChannel as JSON text
//   `{"kind":"callback","url":…}` (an authorization server with Cross-Origin-Opener-Policy
//   would sever window.opener), then the popup closes.
// - After a full-page redirect (the popup was blocked), this tab's sessionStorage holds the
//   pending sign-in: keep the URL there and go back to the page, which resumes it at start.
// The code is removed from the address bar and history at once.
const url = location.href;
history.replaceState(null, '', location.pathname);
if (sessionStorage.getItem('skiff.oauth.pending')) {
  sessionStorage.setItem('skiff.oauth.returned', url);
  location.replace(new URL('../', location.href).href);
} else {
  const channel = new BroadcastChannel('skiff-oauth');
  channel.postMessage(JSON.stringify({ kind: 'callback', url }));
  channel.close();
  setTimeout(() => window.close(), 50);
}
