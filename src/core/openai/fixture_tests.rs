//! Captured provider streams (see `tests/fixtures/README.md` for where each came from), fed
//! whole, split in two at every byte offset, and one byte at a time. Every chunking must give
//! the same events, and those events must add up to the text stated in each test.

use super::ChatStream;
use crate::agent::assemble::{AssembledCall, ToolCallAssembler};
use crate::records::message::Usage;
use crate::seam::{ProviderError, StreamEvent};

macro_rules! fixture {
    ($name:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/openai/",
            $name
        ))
    };
}

#[derive(Debug, PartialEq)]
struct Run {
    events: Vec<StreamEvent>,
    /// The first error from `feed`, or what `finish` said.
    end: Result<(), ProviderError>,
}

fn run<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Run {
    let mut s = ChatStream::new();
    let mut events = Vec::new();
    for c in chunks {
        match s.feed(c) {
            Ok(e) => events.extend(e),
            Err(e) => {
                return Run {
                    events,
                    end: Err(e),
                }
            }
        }
    }
    match s.finish() {
        Ok(e) => {
            events.extend(e);
            Run {
                events,
                end: Ok(()),
            }
        }
        Err(e) => Run {
            events,
            end: Err(e),
        },
    }
}

#[derive(Debug, PartialEq)]
struct Summary {
    content: String,
    reasoning: String,
    usage: Option<Usage>,
    finish: Option<String>,
    done: bool,
    end: Result<(), ProviderError>,
}

fn summarize(r: Run) -> Summary {
    let mut s = Summary {
        content: String::new(),
        reasoning: String::new(),
        usage: None,
        finish: None,
        done: false,
        end: r.end,
    };
    for e in r.events {
        match e {
            StreamEvent::Content(t) => s.content.push_str(&t),
            StreamEvent::Reasoning(t) => s.reasoning.push_str(&t),
            StreamEvent::Usage(u) => s.usage = Some(u),
            StreamEvent::Finish(f) => {
                assert!(s.finish.is_none(), "two finish events");
                s.finish = Some(f);
            }
            StreamEvent::Done => s.done = true,
            StreamEvent::ReasoningSignature(_) | StreamEvent::RedactedReasoning(_) => {}
            StreamEvent::Progress(_) | StreamEvent::Timings(_) => {}
            StreamEvent::ToolCall(_) => panic!("no tool calls in a plain-text fixture"),
            StreamEvent::Image(_) => panic!("no image in a plain-text fixture"),
        }
    }
    s
}

/// Feed `bytes` every way and return the summary after checking all chunkings agree.
fn decode_every_way(bytes: &[u8]) -> Summary {
    let whole = run([bytes]);
    for i in crate::split_points::split_points(bytes) {
        let split = run([&bytes[..i], &bytes[i..]]);
        assert_eq!(split, whole, "split at byte {i}");
    }
    let bytewise = run(bytes.chunks(1));
    assert_eq!(bytewise, whole, "one byte at a time");
    summarize(whole)
}

fn usage(prompt_tokens: u32, completion_tokens: u32, total_tokens: u32) -> Option<Usage> {
    Some(Usage {
        prompt_tokens,
        completion_tokens,
        total_tokens,
    })
}

#[test]
fn llama_cpp_reasoning_then_content_with_usage_chunk() {
    let got = decode_every_way(fixture!("llamacpp_b6459_reasoning.sse"));
    assert_eq!(
        got,
        Summary {
            content: "Hello! How can I help you today? 😊".into(),
            reasoning: concat!(
                "Hmm, the user just said \"hi\" which is a simple greeting. No complex context or ",
                "specific request here. \n\nA straightforward friendly response should suffice. ",
                "Can keep it warm but concise since there's no indication of needing extended ",
                "conversation. \n\nMaybe add a slight open-ended prompt to encourage further ",
                "interaction if the user has follow-up needs. A simple \"How can I help you?\" would ",
                "work. \n\nThe tone should be approachable but not overly casual—maintain ",
                "professional warmth since this is likely an initial contact."
            )
            .into(),
            usage: usage(5, 117, 122),
            finish: Some("stop".into()),
            // The capture ends `data: [DONE]\n` with no blank line after it, so per the SSE
            // spec that last event is never dispatched; finish_reason still completes the answer.
            done: false,
            end: Ok(()),
        }
    );
}

#[test]
fn done_is_seen_once_its_blank_line_arrives() {
    let mut bytes = fixture!("llamacpp_b6459_reasoning.sse").to_vec();
    bytes.push(b'\n');
    let got = summarize(run([bytes.as_slice()]));
    assert!(got.done);
    assert_eq!(got.end, Ok(()));
}

#[test]
fn llama_cpp_events_are_one_per_token() {
    let events = run([fixture!("llamacpp_b6459_reasoning.sse").as_slice()]).events;
    let reasoning = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Reasoning(_)))
        .count();
    let content = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Content(_)))
        .count();
    // The role-only first chunk and the empty-delta finish chunk produce nothing.
    assert_eq!((reasoning, content, events.len()), (101, 10, 114));
    // The last chunk's `timings`, as llama.cpp's server sends them, kept under the answer.
    let timings = events.iter().find_map(|e| match e {
        StreamEvent::Timings(t) => Some(*t),
        _ => None,
    });
    assert_eq!(
        timings,
        Some(crate::records::speed::AnswerSpeed {
            prompt_n: 5,
            cache_n: 0,
            prompt_ms: 479,
            predicted_n: 117,
            predicted_ms: 11078,
        })
    );
}

#[test]
fn openai_plain_stream() {
    let got = decode_every_way(fixture!("openai_gpt4o_mini.sse"));
    assert_eq!(
        got,
        Summary {
            content: "Hello, World!".into(),
            reasoning: String::new(),
            usage: None,
            finish: Some("stop".into()),
            done: false, // file ends `data: [DONE]\n`
            end: Ok(()),
        }
    );
}

#[test]
fn openai_include_usage_chunk_with_empty_choices() {
    let got = decode_every_way(fixture!("openai_gpt35_include_usage.sse"));
    assert_eq!(
        got,
        Summary {
            content: "Hi, how are you?".into(),
            reasoning: String::new(),
            usage: usage(10, 5, 15),
            finish: Some("stop".into()),
            done: false, // file ends `data: [DONE]` with no newline at all
            end: Ok(()),
        }
    );
}

#[test]
fn groq_usage_on_the_finish_chunk() {
    let got = decode_every_way(fixture!("groq_llama33_usage_on_finish.sse"));
    assert_eq!(
        got,
        Summary {
            content: "Hello, World!".into(),
            reasoning: String::new(),
            usage: usage(45, 5, 50),
            finish: Some("stop".into()),
            done: false,
            end: Ok(()),
        }
    );
}

#[test]
fn moonshot_reasoning_only_cut_by_length_with_usage_in_choice() {
    // `data:` without a space, usage inside the choice, no visible content at all.
    let got = decode_every_way(fixture!("kimi_reasoning_length.sse"));
    assert_eq!(
        got,
        Summary {
            content: String::new(),
            reasoning: concat!(
                "We need respond to user. The user said \"Say 'Hello, World!' and nothing else.\" ",
                "So we must output exactly: Hello, World! (and no extra text). No extra punctuation. ",
                "The system says we need think step by step."
            )
            .into(),
            usage: usage(18, 50, 68),
            finish: Some("length".into()),
            done: true,
            end: Ok(()),
        }
    );
}

#[test]
fn openrouter_comments_then_cut_mid_answer() {
    let got = decode_every_way(fixture!("openrouter_processing_cut.sse"));
    assert_eq!(
        got,
        Summary {
            content: "亚".into(),
            reasoning: String::new(),
            usage: None,
            finish: None,
            done: false,
            end: Err(ProviderError::StreamCut),
        }
    );
}

#[test]
fn openrouter_error_chunk_keeps_earlier_text() {
    let got = decode_every_way(fixture!("openrouter_midstream_error.written.sse"));
    assert_eq!(
        got,
        Summary {
            content: "Hello".into(),
            reasoning: String::new(),
            usage: None,
            finish: None,
            done: false,
            end: Err(ProviderError::InStream(
                "Provider disconnected unexpectedly".into()
            )),
        }
    );
}

/// What a tool-calling capture adds up to once its fragments are assembled.
#[derive(Debug, PartialEq)]
struct Calls {
    calls: Vec<AssembledCall>,
    content: String,
    usage: Option<Usage>,
    finish: Option<String>,
    done: bool,
    end: Result<(), ProviderError>,
}

/// Like `decode_every_way`, for captures holding tool calls.
fn calls_every_way(bytes: &[u8]) -> Calls {
    let whole = run([bytes]);
    for i in crate::split_points::split_points(bytes) {
        assert_eq!(run([&bytes[..i], &bytes[i..]]), whole, "split at byte {i}");
    }
    assert_eq!(run(bytes.chunks(1)), whole, "one byte at a time");
    let mut assembler = ToolCallAssembler::new();
    let mut out = Calls {
        calls: Vec::new(),
        content: String::new(),
        usage: None,
        finish: None,
        done: false,
        end: whole.end,
    };
    for e in whole.events {
        match e {
            StreamEvent::ToolCall(d) => assembler.push(&d),
            StreamEvent::Content(t) => out.content.push_str(&t),
            StreamEvent::Reasoning(_) => {}
            StreamEvent::Usage(u) => out.usage = Some(u),
            StreamEvent::Finish(f) => out.finish = Some(f),
            StreamEvent::Done => out.done = true,
            StreamEvent::Image(_) => panic!("no recording here holds an image"),
            StreamEvent::ReasoningSignature(_) | StreamEvent::RedactedReasoning(_) => {}
            StreamEvent::Progress(_) | StreamEvent::Timings(_) => {}
        }
    }
    out.calls = assembler.finish();
    out
}

fn call(id: &str, name: &str, arguments: &str) -> AssembledCall {
    AssembledCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

#[test]
fn openai_two_parallel_calls_in_sequence() {
    let got = calls_every_way(fixture!("openai_gpt4_parallel_tool_calls.sse"));
    assert_eq!(
        got,
        Calls {
            calls: vec![
                call(
                    "call_3Gyr3HylFJwfrtKrL6NaIit1",
                    "search",
                    r#"{"search_query": "Discourse AI bot"}"#
                ),
                call(
                    "call_H7YkbgYurHpyJqzwUN4bghwN",
                    "search",
                    r#"{"query": "Discourse AI bot2"}"#
                ),
            ],
            content: String::new(),
            usage: None,
            finish: Some("tool_calls".into()),
            done: false, // file ends `data: [DONE]` with no newline
            end: Ok(()),
        }
    );
}

#[test]
fn vllm_empty_argument_fragment_on_the_finish_chunk() {
    // The name arrives without `arguments`, and the finish chunk repeats the index with an
    // empty fragment: one call, not two.
    let got = calls_every_way(fixture!("vllm_llama31_tool_call_empty_tail.sse"));
    assert_eq!(
        got,
        Calls {
            calls: vec![call(
                "chatcmpl-tool-b3b307239370432d9910d4b79b4dbbaa",
                "searchGoogle",
                r#"{"query": "latest news on ai"}"#
            )],
            content: String::new(),
            usage: usage(226, 20, 246),
            finish: Some("tool_calls".into()),
            done: true,
            end: Ok(()),
        }
    );
}
