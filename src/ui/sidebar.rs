//! The conversation list: new, select, rename in place, delete with confirmation. Choosing a
//! conversation (or New chat) puts the caret in the message box.
//!
//! Pinned first, then the projects (each heading folds its conversations away and has its own
//! New chat), then the rest grouped by date; drawn as a window: only the rows in view exist in the DOM, between two
//! spacers, so a thousand conversations cost what twenty do (`core::sidebar` decides which).

use crate::stores::reactive::{effect, memo};
use leptos::html;
use leptos::prelude::*;
use skiff_core::format::{count as count_of, fixed};
use skiff_core::masks::find as find_mask;
use skiff_core::projects::Project;
use skiff_core::records::conversation::ConversationSummary;
use skiff_core::sidebar::{self, Row};

use super::composer::focus_composer;
use super::context::ctx;
use super::icons;
use super::keyed_list::keyed_list;
use super::when::When;
use crate::platform::clock;

/// One drawn row: a group heading or a conversation (with its 1-based position and the
/// number of conversations, for `aria-posinset`/`aria-setsize`).
#[derive(Clone, PartialEq)]
enum Item {
    Group(String),
    /// A project's heading and how many conversations it holds.
    Project(Project, usize),
    /// A conversation, its position, the number drawn, and whether it sits in a project.
    Conversation(ConversationSummary, usize, usize, bool),
}

impl Item {
    /// A group keeps its row while its label stays; a conversation's row is redrawn only when
    /// its own title or place (in a project or not) changes. Never by the number of
    /// conversations or its position: another tab adding or deleting one would rebuild every
    /// row and throw away a title being typed or an open delete confirmation. Those two
    /// (`aria-setsize`, `aria-posinset`) follow reactively instead. `\n` cannot occur in an id.
    fn key(&self) -> String {
        match self {
            Item::Group(label) => format!("\n{label}"),
            Item::Project(p, count) => {
                format!("\r{}\n{}\n{count}\n{}", p.id, p.name, p.collapsed)
            }
            Item::Conversation(s, _, _, nested) => {
                format!("{}\n{}\n{nested}", s.id, s.title)
            }
        }
    }
}

/// The window's inner height in CSS pixels (the core's default when it cannot be read).
fn viewport_px() -> f64 {
    web_sys::window()
        .and_then(|w| w.inner_height().ok())
        .and_then(|h| h.as_f64())
        .filter(|h| *h > 0.0)
        .unwrap_or(sidebar::VIEWPORT_PX)
}

/// Start a new chat, in `project` (with its mask, if it names one that exists) or in none.
pub fn new_chat_in(project: Option<&Project>) {
    let ctx = ctx();
    ctx.convs.select_none();
    ctx.convs.draft_project.set(project.map(|p| p.id.clone()));
    let mask = project.and_then(|p| p.mask.clone()).filter(|id| {
        ctx.settings
            .settings
            .with_untracked(|s| find_mask(&s.masks, id).is_some())
    });
    ctx.convs.draft_mask.set(mask);
    ctx.sidebar_open.set(false);
    focus_composer();
}

#[component]
pub fn Sidebar() -> impl IntoView {
    let ctx = ctx();
    let new_chat = move |_| new_chat_in(None);
    // Only a change of the projects redraws the list, not every settings edit.
    let projects = memo(move || ctx.settings.settings.with(|s| s.projects.clone()));
    let list = NodeRef::<html::Ul>::new();
    // Only the rows in view are drawn (`core::sidebar`). The groups are computed when the
    // index changes (every message moves its conversation), so "Today" of a tab left open
    // overnight is corrected by the next message.
    let scroll_top = RwSignal::new(0.0);
    let offset_minutes = clock::offset_minutes();
    let rows = memo(move || {
        let now = clock::now_ms();
        projects.with(|projects| {
            ctx.convs.index.with(|items| {
                let rows = sidebar::rows(items, projects, now, offset_minutes);
                let offsets = sidebar::offsets(&rows);
                let drawn = rows
                    .iter()
                    .filter(|r| matches!(r, Row::Conversation { .. }))
                    .count();
                (rows, offsets, drawn)
            })
        })
    });
    // The rows for the window's height: the list is never taller. `innerHeight` is read
    // without a layout, and again when the window is resized; a thousand conversations then
    // draw the two dozen rows a laptop shows, not the fifty-odd of a tall monitor, which
    // measured ~25 ms more to input ready (bench-conversations).
    let viewport = RwSignal::new(viewport_px());
    let _ = window_event_listener(leptos::ev::resize, move |_| viewport.set(viewport_px()));
    let window = move || {
        let top = scroll_top.get();
        let height = viewport.get();
        rows.with(|(_, offsets, _)| sidebar::window(offsets, top, height, sidebar::OVERSCAN_ROWS))
    };
    let items = memo(move || {
        let w = window();
        rows.with(|(rows, _, drawn)| {
            ctx.convs.index.with(|index| {
                projects.with(|projects| {
                    rows[w.start..w.end]
                        .iter()
                        .filter_map(|r| match r {
                            Row::Group(label) => Some(Item::Group(label.clone())),
                            Row::Project { project, count } => projects
                                .get(*project)
                                .map(|p| Item::Project(p.clone(), *count)),
                            Row::Conversation {
                                index: i,
                                position,
                                nested,
                            } => index
                                .get(*i)
                                .map(|s| Item::Conversation(s.clone(), *position, *drawn, *nested)),
                        })
                        .collect::<Vec<_>>()
                })
            })
        })
    });
    // A drawn row's place in the list and the list's length, read from the rows drawn now:
    // they change with every add or delete, which must not redraw the row (`Item::key`).
    let place = move |id: &str| {
        items.with(|items| {
            items.iter().find_map(|i| match i {
                Item::Conversation(s, position, count, _) if s.id == id => {
                    Some((*position, *count))
                }
                _ => None,
            })
        })
    };
    // A conversation chosen elsewhere (search, a new chat, another tab) is scrolled into view;
    // one already visible stays where it is. Scrolled when it is *chosen*, not when its body
    // arrives: the page reopens the newest conversation at start, and its body can take
    // seconds to read (a large history, a slow device); scrolling again when it came would
    // pull the list back to the top under a user who had scrolled down meanwhile, and take
    // away the row they were about to rename or open.
    let chosen = memo(move || {
        ctx.convs
            .current
            .with(|c| c.map(|l| l.id()))
            .or_else(|| ctx.convs.loading.get())
    });
    effect(move || {
        let id = chosen.get();
        let Some(el) = list.get() else { return };
        let target = rows.with_untracked(|(rows, offsets, _)| {
            let row = ctx.convs.index.with_untracked(|index| {
                rows.iter().position(|r| {
                    matches!(r, Row::Conversation { index: i, .. } if index.get(*i).map(|s| &s.id) == id.as_ref())
                })
            })?;
            sidebar::scroll_to_show(offsets, row, f64::from(el.scroll_top()), f64::from(el.client_height()))
        });
        if let Some(top) = target {
            el.set_scroll_top(top as i32);
            scroll_top.set(top);
        }
    });
    view! {
        <nav class="sidebar" aria-label="Conversations">
            <div class="sidebar-top">
                <span class="brand">"Skiff"</span>
                <button class="primary new-chat" on:click=new_chat>"+ New chat"</button>
            </div>
            <When when=move || ctx.convs.index.with(Vec::is_empty)>
                <p class="sidebar-empty">"No conversations yet."</p>
            </When>
            <ul
                class="conversation-list"
                node_ref=list
                on:scroll=move |ev| scroll_top.set(f64::from(event_target::<web_sys::Element>(&ev).scroll_top()))
            >
                <li class="list-spacer" aria-hidden="true" style:height=move || format!("{}px", fixed(window().top_px, 2))></li>
                {keyed_list(move || items.get(), Item::key, move |item| match item {
                    Item::Group(label) => view! { <li class="conversation-group">{label}</li> }.into_any(),
                    Item::Project(p, count) => view! { <ProjectHeading project=p count /> }.into_any(),
                    Item::Conversation(s, position, count, nested) => {
                        let id = s.id.clone();
                        // While the row is drawn its id is among the items; the first values
                        // cover the moment it leaves.
                        let place = Signal::derive(move || place(&id).unwrap_or((position, count)));
                        view! { <ConversationItem summary=s place nested /> }.into_any()
                    }
                })}
                <li class="list-spacer" aria-hidden="true" style:height=move || format!("{}px", fixed(window().bottom_px, 2))></li>
            </ul>
            // Where a keyboard or screen-reader user finds the shortcuts (also Ctrl+/ or ?).
            <button class="link-button open-search" on:click=move |_| ctx.show_search.set(true)>"Search conversations"</button>
            <button class="link-button show-shortcuts" on:click=move |_| ctx.show_help.set(true)>
                "Keyboard shortcuts"
            </button>
        </nav>
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Normal,
    Renaming,
    ConfirmDelete,
}

/// A project's heading: a button that folds its conversations away (remembered with the
/// project), its count, and a New chat in it.
#[component]
fn ProjectHeading(project: Project, count: usize) -> impl IntoView {
    let ctx = ctx();
    let name = project.label().to_string();
    let open = !project.collapsed;
    let id = project.id.clone();
    let toggle = move |_| {
        ctx.settings.settings.update(|s| {
            if let Some(p) = s.projects.iter_mut().find(|p| p.id == id) {
                p.collapsed = !p.collapsed;
            }
        });
    };
    let new_label = format!("New chat in {name}");
    let project = StoredValue::new(project);
    view! {
        <li class="project-heading">
            <button class="project-toggle" aria-expanded=open.to_string() on:click=toggle title=name.clone()>
                <span class="project-caret" aria-hidden="true">{if open { "▾" } else { "▸" }}</span>
                <span class="project-name">{name.clone()}</span>
                <span class="project-count" aria-label=count_of(count, "conversation", "conversations")>{count}</span>
            </button>
            <button
                class="icon-button project-new"
                title=new_label.clone()
                aria-label=new_label
                on:click=move |_| project.with_value(|p| new_chat_in(Some(p)))
            >"+"</button>
        </li>
    }
}

#[component]
fn ConversationItem(
    summary: ConversationSummary,
    /// Its 1-based position and the number of conversations (`aria-posinset`/`-setsize`).
    place: Signal<(usize, usize)>,
    nested: bool,
) -> impl IntoView {
    let ctx = ctx();
    let mode = RwSignal::new(Mode::Normal);
    let id = StoredValue::new(summary.id.clone());
    let draft = RwSignal::new(summary.title.clone());
    let title = if summary.title.is_empty() {
        "New conversation".to_string()
    } else {
        summary.title.clone()
    };
    let confirm_text = format!("Delete “{title}”?");
    let active = move || ctx.convs.current.get().map(|l| l.id()) == Some(id.get_value());
    let select = move |_| {
        ctx.convs.select(&id.get_value());
        ctx.sidebar_open.set(false);
        focus_composer();
    };
    let commit_rename = move || {
        ctx.convs.rename(&id.get_value(), &draft.get_untracked());
        mode.set(Mode::Normal);
    };
    let delete = move |_| {
        let id = id.get_value();
        ctx.runner.stop(&id);
        ctx.convs.delete(&id);
    };
    view! {
        <li class="conversation" class:active=active class:nested=nested aria-posinset=move || place.get().0 aria-setsize=move || place.get().1>
            {move || match mode.get() {
                Mode::Normal => view! {
                    <button class="conversation-select" on:click=select title=title.clone()>
                        {title.clone()}
                    </button>
                    <button class="icon-button" title="Rename" aria-label="Rename" on:click=move |_| mode.set(Mode::Renaming)>{icons::pencil()}</button>
                    <button class="icon-button" title="Delete" aria-label="Delete" on:click=move |_| mode.set(Mode::ConfirmDelete)>{icons::trash()}</button>
                }
                .into_any(),
                Mode::Renaming => view! {
                    <form class="rename" on:submit=move |ev| { ev.prevent_default(); commit_rename(); }>
                        <input
                            aria-label="Conversation title"
                            prop:value=move || draft.get()
                            on:input=move |ev| draft.set(event_target_value(&ev))
                            on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Escape" {
                                // Handled: the page's Escape (stop the answer) is not also run.
                                ev.prevent_default();
                                mode.set(Mode::Normal);
                            }
                            autofocus
                        />
                        <button type="submit" class="small">"Save"</button>
                    </form>
                }
                .into_any(),
                Mode::ConfirmDelete => view! {
                    <div class="confirm-delete" role="group" aria-label="Confirm delete">
                        <span>{confirm_text.clone()}</span>
                        <button class="danger small" on:click=delete>"Delete"</button>
                        <button class="small" on:click=move |_| mode.set(Mode::Normal)>"Cancel"</button>
                    </div>
                }
                .into_any(),
            }}
        </li>
    }
}
