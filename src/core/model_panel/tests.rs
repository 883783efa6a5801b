use super::view::{context_choices, time_left};
use super::*;
use crate::local_model::{GgufError, UnsupportedModel};

fn state() -> WorkerState {
    // As the worker sends it, with a field this build does not know.
    let json = r#"{"op":"state","models":[{"id":"smollm2","name":"SmolLM2 135M Instruct","architecture":"llama","quantization":"Q4_1","context_length":8192,"context":2048,"size":98362432,"parameters":134515008,"top_k":40}],
        "jobs":[{"job":3,"kind":"url","name":"gemma.gguf","bytes":25000000,"total":100000000,"started_ms":1000,"error":null},
                {"job":4,"kind":"file","name":"notes.txt","bytes":0,"total":10,"started_ms":0,"error":{"not_a_model":"NotGguf"}}],
        "loaded":{"model":"smollm2","context":2048,"load_ms":1234,"bytes":180000000},"generating":"smollm2","waiting":1,"unknown":true}"#;
    match FromWorker::from_json(json) {
        Ok(FromWorker::State(s)) => s,
        other => panic!("{other:?}"),
    }
}

fn view(s: &WorkerState, now_ms: f64) -> PanelView {
    Panel::default().view(s, now_ms)
}

#[test]
fn every_message_reads_back_as_it_was_written() {
    let to = [
        ToWorker::Fetch {
            id: 7,
            path: "/chat/completions".into(),
            body: r#"{"messages":[]}"#.into(),
        },
        ToWorker::Abort { id: 7 },
        ToWorker::Report,
        ToWorker::AddFile,
        ToWorker::AddUrl {
            url: "https://example.org/m.gguf".into(),
        },
        ToWorker::Cancel { job: 2 },
        ToWorker::Dismiss { job: 2 },
        ToWorker::Delete {
            model: "smollm2".into(),
        },
        ToWorker::SetContext {
            model: "smollm2".into(),
            context: 1024,
        },
        ToWorker::SetSampling {
            model: "smollm2".into(),
            value: SamplingValue::RepeatPenalty(Some(1.1)),
        },
        ToWorker::SetSampling {
            model: "smollm2".into(),
            value: SamplingValue::Seed(None),
        },
    ];
    for m in to {
        assert_eq!(ToWorker::from_json(&m.to_json()), Ok(m.clone()), "{m:?}");
    }
    let mut s = state();
    s.storage = Some(JobError::StorageRefused {
        detail: "SecurityError".into(),
    });
    s.refused = Some(Refusal::NotStored);
    s.jobs[0].error = Some(JobError::CannotRun(UnsupportedModel::Architecture {
        found: "qwen2".into(),
    }));
    let from = [
        FromWorker::Head {
            id: 1,
            status: 200,
            sse: true,
        },
        FromWorker::Chunk {
            id: 1,
            text: "data: {\"a\":\"\\n\"}\n\n".into(),
        },
        FromWorker::End { id: 1 },
        FromWorker::State(s),
    ];
    for m in from {
        assert_eq!(FromWorker::from_json(&m.to_json()), Ok(m.clone()), "{m:?}");
    }
    // A message from another build is an error with a sentence, never a panic.
    let e = ToWorker::from_json(r#"{"op":"panel"}"#).unwrap_err();
    assert!(e.to_string().contains("reload the page"), "{e}");
    assert_eq!(
        FromWorker::from_json(r#"{"op":"state"}"#),
        Ok(FromWorker::State(WorkerState::default()))
    );
}

#[test]
fn the_view_shows_progress_time_left_errors_models_and_what_is_loaded() {
    let v = view(&state(), 11_000.0);
    let download = &v.jobs[0];
    assert_eq!(download.title, "Downloading gemma.gguf");
    assert_eq!(download.kind.as_str(), "url");
    // 25 MB in 10 s: 75 MB more take 30 s.
    assert_eq!(download.line, "25 MB of 100 MB · 30 s left");
    assert_eq!(download.permille, Some(250));
    assert_eq!(download.cancel_label, "Cancel downloading gemma.gguf");
    assert_eq!(download.failure, None);
    let failed = &v.jobs[1];
    assert_eq!(
        failed.failure.as_deref(),
        Some("notes.txt: This file is not a GGUF model.")
    );
    assert_eq!(failed.permille, None, "a failure shows no progress");
    let m = &v.models[0];
    assert_eq!(
        m.facts,
        "llama · Q4_1 · 135 M parameters · 98 MB · up to 8192 tokens"
    );
    assert_eq!(m.context, 2048);
    assert_eq!(m.contexts, [512, 1024, 2048, 4096, 8192]);
    assert_eq!(
        v.loaded.as_deref(),
        Some("Loaded: smollm2, context 2048 tokens, in 1.2 s, 180 MB of memory · answering · 1 waiting.")
    );
    assert!(!m.confirming);
    assert_eq!(v.notice, None);
}

#[test]
fn deleting_asks_first_and_the_files_name_leads() {
    let s = state();
    let mut panel = Panel::default();
    let ask = Intent::AskDelete {
        model: "smollm2".into(),
    };
    assert_eq!(
        panel.handle(ask.clone(), &s),
        None,
        "the first click sends nothing"
    );
    let v = panel.view(&s, 0.0);
    assert!(v.models[0].confirming);
    // The file's name leads; the GGUF's own name is the tooltip.
    assert_eq!(v.models[0].id, "smollm2");
    assert_eq!(v.models[0].title.as_deref(), Some("SmolLM2 135M Instruct"));
    assert_eq!(panel.handle(Intent::Keep, &s), None);
    assert!(!panel.view(&s, 0.0).models[0].confirming);
    panel.handle(ask, &s);
    assert_eq!(
        panel.handle(
            Intent::Delete {
                model: "smollm2".into()
            },
            &s
        ),
        Some(Effect::Send(ToWorker::Delete {
            model: "smollm2".into()
        }))
    );
    assert!(!panel.view(&s, 0.0).models[0].confirming);
}

#[test]
fn hostile_names_stay_text_and_no_time_is_promised_too_early() {
    let mut s = state();
    s.models[0].name = "<img src=x onerror=alert(1)>".into();
    s.jobs[0].name = "\"><script>".into();
    let v = view(&s, 1_500.0);
    // Values, not markup: the component sets them as text.
    assert_eq!(
        v.models[0].title.as_deref(),
        Some("<img src=x onerror=alert(1)>")
    );
    assert_eq!(v.jobs[0].title, "Downloading \"><script>");
    // Half a second in: no estimate yet.
    assert_eq!(progress_line(&s.jobs[0], 1_500.0), "25 MB of 100 MB");
    let unknown = Job {
        total: None,
        bytes: 5_000_000,
        ..Job::default()
    };
    assert_eq!(progress_line(&unknown, 60_000.0), "5.0 MB");
    assert!(view(&WorkerState::default(), 0.0).models.is_empty());
}

#[test]
fn context_choices_stop_at_the_maximum_and_keep_the_current_one() {
    assert_eq!(context_choices(2048, 2048), vec![512, 1024, 2048]);
    assert_eq!(context_choices(3000, 700), vec![512, 700, 1024, 2048, 3000]);
    assert_eq!(time_left(3599.0), "60 min left");
    assert_eq!(time_left(7200.0), "2.0 h left");
    let s = state();
    let mut panel = Panel::default();
    assert_eq!(
        panel.handle(
            Intent::SetContext {
                model: "smollm2".into(),
                value: "1024".into()
            },
            &s
        ),
        Some(Effect::Send(ToWorker::SetContext {
            model: "smollm2".into(),
            context: 1024
        }))
    );
    let junk = Intent::SetContext {
        model: "smollm2".into(),
        value: "lots".into(),
    };
    assert_eq!(panel.handle(junk, &s), None);
}

#[test]
fn sampling_defaults_are_checked_before_they_are_sent() {
    let s = state();
    let v = view(&s, 0.0);
    assert_eq!(
        v.models[0].sampling,
        [
            (Sampling::TopK, "40".to_string()),
            (Sampling::RepeatPenalty, String::new()),
            (Sampling::Seed, String::new()),
        ]
    );
    assert_eq!(Sampling::TopK.as_str(), "top_k");
    let mut panel = Panel::default();
    let set = |setting, text: &str| Intent::SetSampling {
        model: "smollm2".into(),
        setting,
        text: text.into(),
    };
    // Refused: a sentence beside that model's fields, nothing sent.
    assert_eq!(panel.handle(set(Sampling::TopK, "0.5"), &s), None);
    let v = panel.view(&s, 0.0);
    assert_eq!(
        v.models[0].notice.as_deref(),
        Some("Top k must be a whole number from 1 to 1000.")
    );
    assert_eq!(v.notice, None);
    assert_eq!(panel.handle(set(Sampling::RepeatPenalty, "9"), &s), None);
    assert_eq!(
        panel.view(&s, 0.0).models[0].notice.as_deref(),
        Some("Repeat penalty must be a number from 1 to 2.")
    );
    // Its model deleted meanwhile: the sentence still shows, above the list.
    assert_eq!(
        panel.view(&WorkerState::default(), 0.0).notice.as_deref(),
        Some("Repeat penalty must be a number from 1 to 2.")
    );
    assert_eq!(panel.handle(set(Sampling::Seed, "-1"), &s), None);
    assert_eq!(panel.handle(set(Sampling::Seed, "1e400"), &s), None);
    // Accepted: sent typed, and the sentence goes.
    assert_eq!(
        panel.handle(set(Sampling::RepeatPenalty, " 1.1 "), &s),
        Some(Effect::Send(ToWorker::SetSampling {
            model: "smollm2".into(),
            value: SamplingValue::RepeatPenalty(Some(1.1))
        }))
    );
    assert_eq!(panel.view(&s, 0.0).models[0].notice, None);
    assert_eq!(
        Sampling::Seed.parse("4294967295"),
        Ok(SamplingValue::Seed(Some(4_294_967_295)))
    );
    assert_eq!(Sampling::TopK.parse(""), Ok(SamplingValue::TopK(None)));
    // A value the worker could not store says so; the old one stays shown.
    let mut refused = s.clone();
    refused.refused = Some(Refusal::NotStored);
    assert_eq!(
        panel.view(&refused, 0.0).notice.as_deref(),
        Some("The setting could not be stored; the browser refused to write it.")
    );
    let mut m = s.models[0].clone();
    m.repeat_penalty = Some(1.1);
    assert_eq!(Sampling::RepeatPenalty.shown(&m), "1.10");
}

#[test]
fn missing_facts_are_left_out() {
    let mut s = WorkerState::default();
    s.models.push(StoredModel {
        id: "m".into(),
        name: "m".into(),
        architecture: "gemma3".into(),
        quantization: "Q8_0".into(),
        context: 2048,
        size: 10,
        ..StoredModel::default()
    });
    let v = view(&s, 0.0);
    assert_eq!(v.models[0].facts, "gemma3 · Q8_0 · 10 bytes");
    assert_eq!(
        v.models[0].title, None,
        "a name equal to the id is no tooltip"
    );
}

#[test]
fn a_load_is_cancelled_by_ending_the_worker_after_asking_when_adds_would_stop_too() {
    let mut s = state();
    s.jobs = vec![Job {
        job: 7,
        kind: JobKind::Load,
        name: "smollm2".into(),
        bytes: 49_000_000,
        total: Some(98_000_000),
        started_ms: 0.0,
        error: None,
    }];
    let v = view(&s, 2_000.0);
    assert_eq!(v.jobs[0].kind.as_str(), "load");
    assert_eq!(v.jobs[0].title, "Loading smollm2");
    assert_eq!(v.jobs[0].line, "49 MB of 98 MB · 2 s left");
    let mut panel = Panel::default();
    assert_eq!(
        panel.handle(Intent::Cancel { job: 7 }, &s),
        Some(Effect::EndWorker)
    );
    // A download under way would end with the worker: asked first.
    s.jobs.push(Job {
        job: 8,
        kind: JobKind::Url,
        name: "gemma.gguf".into(),
        ..Job::default()
    });
    assert_eq!(
        panel.handle(Intent::Cancel { job: 7 }, &s),
        Some(Effect::Confirm(
            "Cancelling the load also stops the model being added. Cancel the load?".into()
        ))
    );
    assert_eq!(
        panel.handle(Intent::CancelLoadConfirmed, &s),
        Some(Effect::EndWorker)
    );
    // Another add's own Cancel goes to the worker; an unknown job does nothing.
    assert_eq!(
        panel.handle(Intent::Cancel { job: 8 }, &s),
        Some(Effect::Send(ToWorker::Cancel { job: 8 }))
    );
    assert_eq!(panel.handle(Intent::Cancel { job: 99 }, &s), None);
}

#[test]
fn a_download_address_must_be_http() {
    let s = WorkerState::default();
    let mut panel = Panel::default();
    assert_eq!(
        panel.handle(Intent::AddUrl(" https://h.example/m.gguf ".into()), &s),
        Some(Effect::Send(ToWorker::AddUrl {
            url: "https://h.example/m.gguf".into()
        }))
    );
    assert_eq!(
        panel.handle(Intent::AddUrl("file:///etc/passwd".into()), &s),
        None
    );
    assert_eq!(
        panel.view(&s, 0.0).notice.as_deref(),
        Some("A model can be downloaded only from an http:// or https:// address.")
    );
    assert_eq!(panel.handle(Intent::AddUrl("   ".into()), &s), None);
}

#[test]
fn every_failure_has_its_sentence() {
    let cases = [
        (
            JobError::NotAModel(GgufError::NotGguf),
            "This file is not a GGUF model.",
        ),
        (
            JobError::CannotRun(UnsupportedModel::Architecture {
                found: "qwen2".into(),
            }),
            "This model's architecture is \u{201c}qwen2\u{201d}, which Skiff cannot run in the page; it runs Llama-architecture models (llama, such as SmolLM2) and Gemma 3 (gemma3).",
        ),
        (
            JobError::NoRoom {
                needed: Some(253_113_024),
            },
            "The browser has no room left for this model (254 MB needed): free space or delete a model.",
        ),
        (
            JobError::cors("https://huggingface.co/x/resolve/main/m.gguf?download=1"),
            "The server of huggingface.co does not allow this page to download from it (CORS).",
        ),
        (
            JobError::ServerRefused {
                status: 404,
                status_text: "Not Found".into(),
            },
            "The server answered 404 Not Found for this address.",
        ),
        (
            JobError::ServerRefused {
                status: 403,
                status_text: String::new(),
            },
            "The server answered 403 for this address.",
        ),
        (
            JobError::DownloadStopped {
                detail: "network error.".into(),
            },
            "The download stopped: network error.",
        ),
        (
            JobError::StorageRefused {
                detail: "SecurityError: no.".into(),
            },
            "This browser does not let the page store models (SecurityError: no).",
        ),
    ];
    for (e, sentence) in cases {
        assert_eq!(e.to_string(), sentence);
    }
    let s = WorkerState {
        storage: Some(JobError::StorageOpening),
        ..WorkerState::default()
    };
    assert_eq!(
        view(&s, 0.0).notice.as_deref(),
        Some("The model storage is still opening; try again in a moment.")
    );
}

#[test]
fn a_worker_that_is_not_there_yet_is_said_as_such() {
    assert_eq!(
        WorkerUnavailable::from_probe(Some(404), ""),
        WorkerUnavailable::NotBuilt
    );
    assert!(WorkerUnavailable::NotBuilt
        .to_string()
        .starts_with("The in-page model is still being built"));
    assert_eq!(
        WorkerUnavailable::from_probe(None, "x"),
        WorkerUnavailable::Unreachable
    );
    let failed = WorkerUnavailable::from_probe(Some(200), "RuntimeError: unreachable.");
    assert_eq!(
        failed.to_string(),
        "The model worker could not start (RuntimeError: unreachable). Reload the page; it is stored for offline use once it has run while online."
    );
}

#[test]
fn a_stored_or_deleted_model_is_announced_once() {
    let before = WorkerState::default();
    let after = state();
    assert_eq!(
        announcement(&before, &after).as_deref(),
        Some("smollm2 is stored in this browser.")
    );
    assert_eq!(announcement(&after, &after), None, "progress says nothing");
    assert_eq!(
        announcement(&after, &before).as_deref(),
        Some("smollm2 was deleted.")
    );
}

#[test]
fn stored_models_become_a_model_list_with_what_their_files_say() {
    let s = WorkerState {
        models: vec![
            StoredModel {
                id: "new".into(),
                context: 2048,
                parameters: Some(134_515_008),
                chat_template: Some(true),
                ..StoredModel::default()
            },
            StoredModel {
                id: "old-base".into(),
                context: 0,
                chat_template: Some(false),
                ..StoredModel::default()
            },
        ],
        ..WorkerState::default()
    };
    let entries = s.model_entries();
    assert_eq!(
        entries.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        ["new", "old-base"]
    );
    assert_eq!(entries[0].caps.window, Some(2048));
    assert!(entries[0].caps.is_small());
    assert_eq!(
        entries[1].caps.window, None,
        "no context known, no window claimed"
    );
    assert_eq!(entries[1].caps.chat_template, Some(false));
    assert!(!entries[1].caps.is_small(), "unknown size is not small");
    let v = view(&s, 0.0);
    assert!(
        v.models[1].facts.ends_with("base model: no chat template"),
        "{}",
        v.models[1].facts
    );
    assert!(!v.models[0].facts.contains("base model"));
}
