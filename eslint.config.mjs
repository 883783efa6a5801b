// The lint for the little JavaScript Skiff keeps: only files a browser API needs on their own
// (the service worker, the model worker's bootstrap and its benchmark page, the OAuth callback
// page). Everything else is Rust. `scripts/test.sh` runs `node --check` and this on them.
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    files: ['pwa/sw.template.js'],
    // __SKIFF_PRECACHE__ is replaced by the list of built files (scripts/pwa-precache.mjs).
    languageOptions: { sourceType: 'script', globals: { ...globals.serviceworker, __SKIFF_PRECACHE__: 'readonly' } },
  },
  {
    files: ['src/worker/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser, ...globals.worker } },
  },
  {
    files: ['src/oauth-callback/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    rules: {
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      // Text from servers and models never becomes markup.
      'no-restricted-properties': [
        'error',
        { property: 'innerHTML', message: 'Set textContent or build nodes.' },
        { property: 'outerHTML', message: 'Set textContent or build nodes.' },
      ],
      eqeqeq: 'error',
      'prefer-const': 'error',
      'no-var': 'error',
    },
  },
];
