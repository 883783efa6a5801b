//! DOM nodes from rendered markdown's typed tree (`skiff_core::markdown::MdNode`).
//!
//! Why by hand and not through `view!`: a message's markdown is a tree whose shape is only known
//! at run time and which, once appended, never changes (finished blocks) or is replaced whole
//! (the streaming tail); reactive views would add an owner and a signal graph per node for
//! nothing. Elements are created from the tree's fixed tags (MathML in its namespace),
//! attributes set by their typed names, text appended as text nodes.
//!
//! This module must never parse markup: no `innerHTML`, `insertAdjacentHTML` or
//! `outerHTML` here or in its callers, for anything from the model.

use skiff_core::markdown::{MdNode, Tag};
use web_sys::{Document, Element};

/// Appends `nodes` to `parent`, each element's subtree built before it is attached.
pub fn append_nodes(parent: &Element, nodes: &[MdNode]) {
    let Some(document) = parent.owner_document() else {
        return;
    };
    append_into(&document, parent, nodes);
}

fn append_into(document: &Document, parent: &Element, nodes: &[MdNode]) {
    for node in nodes {
        let appended = match node {
            MdNode::Text(text) => parent.append_with_str_1(text),
            MdNode::Element(el) => create(document, el.tag).and_then(|child| {
                for attr in &el.attrs {
                    child.set_attribute(attr.name(), &attr.value())?;
                }
                append_into(document, &child, &el.children);
                parent.append_with_node_1(&child)
            }),
        };
        if let Err(e) = appended {
            leptos::logging::warn!("could not show part of a rendered message: {e:?}");
        }
    }
}

fn create(document: &Document, tag: Tag) -> Result<Element, wasm_bindgen::JsValue> {
    match tag.namespace().uri() {
        Some(ns) => document.create_element_ns(Some(ns), tag.as_str()),
        None => document.create_element(tag.as_str()),
    }
}
