// Skiff's service worker: the page loads and works with no network, from any static host and
// sub-path. scripts/pwa-precache.mjs writes dist/sw.js from this template after each build,
// filling in BUILD (a hash of the build's files) and PRECACHE (exactly the files the build wrote,
// relative to this script). Nothing here is written by hand per build.
//
// What it must never do:
// - touch provider or MCP traffic: only GET requests for this build's own files, inside its
//   own scope, are answered from the cache; everything else is left to the network, unseen;
// - swap the page's code by itself: a new deployment's worker waits until the page asks it
//   to take over ("A new version is ready — Reload"), so a streaming answer is never cut by it;
// - keep old builds: activation deletes every other `skiff-` cache of this scope;
// - download the model worker (`worker/`, half a megabyte) for a visitor who never used it:
//   its files are cached the first time the page asks for them, and a new build fetches its
//   own copy of each at install only when the previous build's cache held that file (the user
//   runs a model in the page and expects it offline; of its two engines, only the one this
//   browser loads).
'use strict';

const BUILD = '__SKIFF_BUILD__';
const PRECACHE = __SKIFF_PRECACHE__;
const SCOPE = new URL(self.registration.scope);
// One cache per build and per scope: two Skiffs on one origin (two sub-paths) do not collide.
const PREFIX = `skiff-${SCOPE.pathname}-`;
const CACHE = PREFIX + BUILD;
const OWN = new Set(PRECACHE.map((p) => new URL(p, SCOPE).href));
const INDEX = new URL('index.html', SCOPE).href;
const WORKER = new URL('worker/', SCOPE).href;
// The OAuth callback page (extras/) is on demand like the model worker: a sign-in needs the
// network anyway, so it is fetched when used and kept.
const EXTRAS = new URL('extras/', SCOPE).href;
const onDemand = (href) => href.startsWith(WORKER) || href.startsWith(EXTRAS);

self.addEventListener('install', (event) => {
  // Static routes (Chromium's Service Worker Static Routing API): provider and MCP traffic goes
  // straight to the network without waiting for this worker to start, which would otherwise
  // delay every chat request a little. Each route is tried on its own; a browser without the
  // API (or without `not`) simply runs the fetch handler below, which ignores that traffic.
  if (typeof event.addRoutes === 'function') {
    const routes = [
      { condition: { requestMethod: 'POST' }, source: 'network' },
      { condition: { not: { urlPattern: new URLPattern({ origin: SCOPE.origin }) } }, source: 'network' },
    ];
    for (const route of routes) {
      try {
        event.waitUntil(Promise.resolve(event.addRoutes(route)).catch(() => {}));
      } catch {
        // An unsupported condition throws synchronously in some versions.
      }
    }
  }
  event.waitUntil(
    (async () => {
      // Of the model worker, the files the previous build's cache held (any cache of this
      // origin holds them under these URLs): the worker comes in two engines (relaxed SIMD or
      // not), and a browser only ever loads one of them, half a megabyte each.
      const wanted = [];
      for (const href of OWN) {
        if (!onDemand(href) || (href.startsWith(WORKER) && (await caches.match(href)))) wanted.push(href);
      }
      const cache = await caches.open(CACHE);
      // `reload`: straight from the server, never from the HTTP cache of an older build.
      await cache.addAll(wanted.map((href) => new Request(href, { cache: 'reload' })));
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
      }
      // The first install controls the page that registered it, so that page already works
      // offline; an update only gets here after the page asked for it.
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('message', (event) => {
  if (event.data === 'skiff:activate') self.skipWaiting();
  if (event.data === 'skiff:build' && event.source) event.source.postMessage({ build: BUILD });
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return;
  url.search = '';
  url.hash = '';
  // Any page of the app is the app (the cached index of this build, or the network when the
  // cache is gone): every navigation but to a page of the build itself, such as the code
  // previews' frame (preview.html).
  if (request.mode === 'navigate' && !(OWN.has(url.href) && url.href.endsWith('.html'))) {
    event.respondWith(fromCache(INDEX).then((hit) => hit || fetch(request)));
    return;
  }
  if (!OWN.has(url.href)) return;
  event.respondWith(fromCache(url.href).then((hit) => hit || (onDemand(url.href) ? keep(url.href, request) : fetch(request))));
});

// The model worker's files, fetched once and kept with this build's cache.
async function keep(href, request) {
  const response = await fetch(request);
  if (response.ok) {
    const cache = await caches.open(CACHE);
    await cache.put(href, response.clone());
  }
  return response;
}

async function fromCache(href) {
  const cache = await caches.open(CACHE);
  return cache.match(href);
}
