// Prompts (`/`), the sampling approval card and roots (issue 13 items 5, 8, 9). Filled in by
// the prompts work; exports `ops`, `onEvent` and `css` as extras.js expects.
export const ops = {};
export function onEvent() {}
