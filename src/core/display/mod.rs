//! How untrusted text and data from tools, servers and models are made safe to show.
//!
//! A tool's name, a server's name, a description, a MIME type, a URI or a base64 payload all
//! come from a program the user did not write. These rules decide what of it becomes live in
//! the page (an image, an audio player, a link, a download) and how names are shown so they
//! cannot disguise themselves (a U+202E that reverses a tool's name in an approval card, a
//! zero-width space that makes two names look alike). The UI renders what these functions
//! return and decides none of it.
//!
//! Architecture Invariant: this module only maps values to values; it never builds markup
//! (Leptos escapes text) and never asks the browser, so every rule is tested natively.

pub mod card;
pub mod links;
pub mod media;
pub mod text;
