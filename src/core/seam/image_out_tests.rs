use proptest::prelude::*;

use super::*;
use crate::base64::base64;

/// A 2×2 red PNG (the one in `tests/fixtures/gemini/image_inline_png.written.sse`).
const RED: &str = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==";

fn image(ev: StreamEvent) -> ImageOut {
    match ev {
        StreamEvent::Image(i) => i,
        other => panic!("expected an image, got {other:?}"),
    }
}

fn note_of(ev: StreamEvent) -> String {
    match ev {
        StreamEvent::Content(t) => t,
        other => panic!("expected a note, got {other:?}"),
    }
}

proptest! {
    #[test]
    fn any_text_is_an_image_or_a_note_never_a_panic(mime in "\\PC{0,20}", data in "\\PC{0,80}") {
        let ev = from_base64(&mime, &data);
        prop_assert!(matches!(ev, StreamEvent::Image(_) | StreamEvent::Content(_)));
        let ev = from_data_url(&format!("data:{mime};base64,{data}"));
        prop_assert!(matches!(ev, StreamEvent::Image(_) | StreamEvent::Content(_)));
    }
}

#[test]
fn a_png_is_decoded_and_its_bytes_decide_the_type() {
    let png = image(from_base64("image/png", RED));
    assert_eq!(png.mime, "image/png");
    assert_eq!(png.bytes.len(), 73);
    assert!(png.bytes.starts_with(b"\x89PNG"));
    // Called a JPEG, still a PNG.
    assert_eq!(image(from_base64("image/jpg", RED)).mime, "image/png");
    assert_eq!(
        image(from_base64("IMAGE/PNG; charset=x", RED)).mime,
        "image/png"
    );
    let jpeg = base64(b"\xff\xd8\xff\xe0rest");
    assert_eq!(image(from_base64("image/jpeg", &jpeg)).mime, "image/jpeg");
    let gif = base64(b"GIF89a....");
    assert_eq!(image(from_base64("image/gif", &gif)).mime, "image/gif");
    let webp = base64(b"RIFF\x10\0\0\0WEBPVP8 ");
    assert_eq!(image(from_base64("image/webp", &webp)).mime, "image/webp");
}

#[test]
fn what_cannot_be_shown_is_a_note_saying_why() {
    let t = note_of(from_base64("image/tiff", RED));
    assert!(
        t.contains("“image/tiff”") && t.contains("only PNG, JPEG, GIF and WebP are"),
        "{t}"
    );
    assert!(t.starts_with("\n\n*") && t.ends_with("*\n\n"), "{t}");
    let t = note_of(from_base64("audio/L16;codec=pcm;rate=24000", "AAAA"));
    assert!(t.contains("“audio/l16”"), "{t}");
    // Only a type name's characters are repeated (no bidi control, no markdown), and a long
    // one is cut.
    let t = note_of(from_base64("image/\u{202e}g*n](x)p", RED));
    assert!(t.contains("“image/gnxp”"), "{t}");
    let t = note_of(from_base64(&"x".repeat(5000), RED));
    assert!(t.len() < 300, "{t}");
    for (mime, data) in [
        ("image/png", "%%%"),
        ("image/png", ""),
        ("image/png", "aGVsbG8="),
    ] {
        assert_eq!(
            note_of(from_base64(mime, data)),
            "\n\n*The model returned an image whose data is damaged.*\n\n"
        );
    }
}

#[test]
fn an_image_over_the_cap_is_refused_before_decoding() {
    let big = "A".repeat((MAX_IMAGE_BYTES as usize / 3 + 2) * 4);
    assert!(note_of(from_base64("image/png", &big)).contains("an image over 20 MB, not kept"));
}

#[test]
fn data_urls_only() {
    assert_eq!(
        image(from_data_url(&format!(" data:image/png;base64,{RED}"))).mime,
        "image/png"
    );
    for url in [
        "https://example.com/cat.png".to_string(),
        String::new(),
        format!("data:image/png,{RED}"),
        "data:image/png;base64".to_string(),
    ] {
        assert_eq!(
            note_of(from_data_url(&url)),
            "\n\n*The model returned an image by address, which Skiff does not load.*\n\n",
            "{url}"
        );
    }
    assert!(note_of(from_data_url("data:image/svg+xml;base64,PHN2Zz4=")).contains("image/svg+xml"));
}

#[test]
fn names_count_the_message_images() {
    let a = Attachment {
        name: "image-1.png".into(),
        mime: "image/png".into(),
        size: 1,
        hash: "h".into(),
        w: 0,
        h: 0,
        ow: 0,
        oh: 0,
        data: None,
    };
    assert_eq!(name(&[], "image/png"), "image-1.png");
    assert_eq!(name(std::slice::from_ref(&a), "image/jpeg"), "image-2.jpg");
    assert_eq!(name(&[a.clone(), a], "image/webp"), "image-3.webp");
    use crate::attach::not_stored;
    assert!(not_stored("image-1.png", true, "").starts_with("Browser storage is full: image-1.png"));
    assert_eq!(
        not_stored("image-2.gif", false, "the database is closed"),
        "image-2.gif could not be stored: the database is closed"
    );
}
