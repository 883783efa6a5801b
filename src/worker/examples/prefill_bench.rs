//! Times the model code alone: a long prompt read in the worker's chunks, then greedy decode
//! steps. Built for wasm32-wasip1 with simd128 (and relaxed SIMD) and run in Chromium by
//! scripts/bench-prefill.mjs (V8, the engine of the page's worker), it is a loop of a minute
//! for kernel work; natively it runs the scalar fallbacks and says little about the page.
//!
//!   prefill_bench MODEL.gguf [PROMPT_TOKENS=973] [DECODE=32] [CONTEXT=2048]

use skiff_worker::generate::PREFILL_CHUNK;
use skiff_worker::model::Model;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: prefill_bench MODEL.gguf [PROMPT_TOKENS] [DECODE] [CONTEXT]");
        std::process::exit(2);
    };
    let arg =
        |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let (n_prompt, n_decode, context) = (arg(2, 973), arg(3, 32), arg(4, 2048));
    let t = Instant::now();
    let mut file = std::fs::File::open(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1)
    });
    let mut model = Model::load(&mut file, context).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    println!("load {:.2} s", t.elapsed().as_secs_f64());
    // Ordinary vocabulary ids spread over the table (the kernels do not look at meaning).
    let prompt: Vec<u32> = (0..n_prompt as u32)
        .map(|i| 200 + (i * 7919) % 40000)
        .collect();
    let t = Instant::now();
    let mut pos = 0;
    let mut logits = None;
    while pos < prompt.len() {
        let end = (pos + PREFILL_CHUNK).min(prompt.len());
        let c = Instant::now();
        logits = Some(model.forward(&prompt[pos..end], pos).expect("prefill"));
        println!(
            "  chunk {pos:>5}..{end:<5} {:>7.1} tok/s",
            (end - pos) as f64 / c.elapsed().as_secs_f64()
        );
        pos = end;
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "prompt {n_prompt} tokens {secs:.2} s {:.1} tok/s",
        n_prompt as f64 / secs
    );
    let mut next = argmax(&logits.expect("a prompt"));
    let t = Instant::now();
    for _ in 0..n_decode {
        let l = model.forward(&[next], pos).expect("decode");
        pos += 1;
        next = argmax(&l);
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "decode {n_decode} tokens at {n_prompt}.. {:.1} tok/s (last token {next})",
        n_decode as f64 / secs
    );
}

fn argmax(logits: &candle_core::Tensor) -> u32 {
    let v = logits.to_vec1::<f32>().expect("logits");
    let mut best = 0;
    for (i, x) in v.iter().enumerate() {
        if *x > v[best] {
            best = i;
        }
    }
    best as u32
}
