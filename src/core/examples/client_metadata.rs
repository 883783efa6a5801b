//! Prints Skiff's OAuth Client ID Metadata Document for a page served at an https address:
//!
//!     cargo run -q -p skiff-core --example client_metadata -- https://skiff.example/app/
//!
//! `scripts/write-client-metadata.mjs` writes it beside `index.html` when a build knows its
//! public address. It comes from `skiff_core::oauth::client`, the code the sign-in itself uses,
//! so the document and the sign-in cannot disagree on Skiff's redirect URI or client id.

use skiff_core::oauth::client::{metadata_document, AppIdentity};

fn main() {
    let Some(public_url) = std::env::args().nth(1) else {
        eprintln!("usage: client_metadata <public https URL of the page's directory>");
        std::process::exit(2);
    };
    match metadata_document(&AppIdentity::for_page(&public_url, true)) {
        Some(doc) => println!("{doc}"),
        None => {
            eprintln!("{public_url} is not an https address; a client metadata document needs one");
            std::process::exit(1);
        }
    }
}
