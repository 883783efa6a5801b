// Resources, templates, subscriptions and the `@` picker (issue 13 items 1–4). Filled in by
// the resources work; exports `ops`, `onEvent` and `css` as extras.js expects.
export const ops = {};
export function onEvent() {}
