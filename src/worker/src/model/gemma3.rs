//! Gemma 3 model implementation with quantization support.
//!
//! Copied from candle-transformers 0.11.1 `models/quantized_gemma3.rs`
//! (https://github.com/huggingface/candle, Copyright the candle authors, MIT OR Apache-2.0),
//! whose header reads:
//!
//! > Gemma 3 is a family of multimodal language models developed by Google.
//! > This implementation provides quantization for reduced memory usage and faster inference.
//! > Key characteristics: Group-Query Attention (GQA) with specialized key-value heads;
//! > RMSNorm for layer normalization; specialized attention patterns with separate
//! > normalization for Q/K/V; feed-forward network with SwiGLU activation; support for
//! > 2/3/4/8-bit quantization. References: [Gemma 3 Models](https://blog.google/technology/developers/gemma-3/)
//!
//! Fixed here for a browser's 4 GiB wasm memory and for long conversations:
//! - RoPE sin/cos tables: upstream builds them for 131,072 positions in *every* layer
//!   (3.9 GB); here one local and one global table, sized to the context the user set,
//!   shared by all layers.
//! - The 262,144-row token embedding stays quantized (upstream dequantizes it to f32:
//!   671 MB) and is read from the file once, shared with the tied output projection
//!   (upstream reads it twice).
//! - Sliding-window layers keep only the window in their KV cache and mask it in decode
//!   steps too (upstream lets one-token steps see every cached position), and chunked
//!   prefill masks cached positions correctly (upstream hid them).
//! - The feed-forward activation is GELU as in the model's config (upstream: SiLU).

use super::attention::{attend, causal_mask, KvCache, RopeTables};
use super::linear::Linear;
use candle_core::quantized::gguf_file;
use candle_core::{Device, IndexOp, Module, Result, Tensor};
use candle_transformers::quantized_nn::RmsNorm;
use std::io::{Read, Seek};

const DEFAULT_SLIDING_WINDOW_TYPE: usize = 6;
const DEFAULT_ROPE_FREQUENCY: f32 = 1_000_000.;
const DEFAULT_ROPE_FREQUENCY_SLIDING: f32 = 10_000.;

struct Layer {
    wq: Linear,
    wk: Linear,
    wv: Linear,
    wo: Linear,
    q_norm: RmsNorm,
    k_norm: RmsNorm,
    attn_norm: RmsNorm,
    post_attn_norm: RmsNorm,
    ffn_norm: RmsNorm,
    post_ffn_norm: RmsNorm,
    w_gate: Linear,
    w_up: Linear,
    w_down: Linear,
    /// `Some(window)` for local (sliding-window) layers, `None` for global ones.
    window: Option<usize>,
    cache: KvCache,
}

pub(crate) struct Gemma3 {
    embeddings: Linear,
    embedding_length: usize,
    layers: Vec<Layer>,
    norm: RmsNorm,
    output: Linear,
    rope_local: RopeTables,
    rope_global: RopeTables,
    n_head: usize,
    n_kv_head: usize,
    head_dim: usize,
}

impl Gemma3 {
    pub(crate) fn load<R: Read + Seek>(
        ct: &gguf_file::Content,
        reader: &mut R,
        context: usize,
        device: &Device,
    ) -> Result<Self> {
        // Detect architecture prefix by probing which keys exist in metadata (as upstream).
        let prefix = ["gemma3", "gemma2", "gemma", "gemma-embedding"]
            .iter()
            .find(|p| {
                ct.metadata
                    .contains_key(&format!("{p}.attention.head_count"))
            })
            .copied()
            .unwrap_or("gemma3");
        let md = |s: &str| {
            let key = format!("{prefix}.{s}");
            match ct.metadata.get(&key) {
                None => candle_core::bail!("the model file has no {key}"),
                Some(v) => Ok(v),
            }
        };
        let n_head = md("attention.head_count")?.to_u32()? as usize;
        let n_kv_head = md("attention.head_count_kv")?.to_u32()? as usize;
        let blocks = md("block_count")?.to_u32()? as usize;
        let embedding_length = md("embedding_length")?.to_u32()? as usize;
        let head_dim = md("attention.key_length")?.to_u32()? as usize;
        let eps = md("attention.layer_norm_rms_epsilon")?.to_f32()? as f64;
        let window = md("attention.sliding_window")?.to_u32()? as usize;
        let window_type = md("attention.sliding_window_type")
            .and_then(|m| Ok(m.to_u32()? as usize))
            .unwrap_or(DEFAULT_SLIDING_WINDOW_TYPE);
        let freq_global = md("rope.freq_base")
            .and_then(|m| m.to_f32())
            .unwrap_or(DEFAULT_ROPE_FREQUENCY);
        let freq_local = md("rope.local_freq_base")
            .and_then(|m| m.to_f32())
            .unwrap_or(DEFAULT_ROPE_FREQUENCY_SLIDING);

        let embeddings = Linear::new(ct.tensor(reader, "token_embd.weight", device)?)?;
        let norm = RmsNorm::from_qtensor(ct.tensor(reader, "output_norm.weight", device)?, eps)?;
        let output = if ct.tensor_infos.contains_key("output.weight") {
            Linear::new(ct.tensor(reader, "output.weight", device)?)?
        } else {
            embeddings.clone()
        };

        let mut layers = Vec::with_capacity(blocks);
        for i in 0..blocks {
            let mut t = |name: &str| ct.tensor(reader, &format!("blk.{i}.{name}.weight"), device);
            // Five local layers, then one global (upstream's pattern).
            let sliding = (i + 1) % window_type > 0;
            layers.push(Layer {
                wq: Linear::new(t("attn_q")?)?,
                wk: Linear::new(t("attn_k")?)?,
                wv: Linear::new(t("attn_v")?)?,
                wo: Linear::new(t("attn_output")?)?,
                q_norm: RmsNorm::from_qtensor(t("attn_q_norm")?, eps)?,
                k_norm: RmsNorm::from_qtensor(t("attn_k_norm")?, eps)?,
                attn_norm: RmsNorm::from_qtensor(t("attn_norm")?, eps)?,
                post_attn_norm: RmsNorm::from_qtensor(t("post_attention_norm")?, eps)?,
                ffn_norm: RmsNorm::from_qtensor(t("ffn_norm")?, eps)?,
                post_ffn_norm: RmsNorm::from_qtensor(t("post_ffw_norm")?, eps)?,
                w_gate: Linear::new(t("ffn_gate")?)?,
                w_up: Linear::new(t("ffn_up")?)?,
                w_down: Linear::new(t("ffn_down")?)?,
                window: sliding.then_some(window),
                cache: KvCache::default(),
            });
        }
        Ok(Self {
            embeddings,
            embedding_length,
            layers,
            norm,
            output,
            rope_local: RopeTables::new(head_dim, freq_local, context, device)?,
            rope_global: RopeTables::new(head_dim, freq_global, context, device)?,
            n_head,
            n_kv_head,
            head_dim,
        })
    }

    /// Runs `tokens` placed at `pos..` and returns the logits of the last one.
    pub(crate) fn forward(&mut self, tokens: &[u32], pos: usize) -> Result<Tensor> {
        let device = Device::Cpu;
        let seq = tokens.len();
        let ids = Tensor::new(tokens, &device)?.unsqueeze(0)?;
        let mut x = (self.embeddings.embedding(&ids)? * (self.embedding_length as f64).sqrt())?;
        let scale = 1.0 / (self.head_dim as f64).sqrt();
        for layer in self.layers.iter_mut() {
            let residual = x.clone();
            let h = layer.attn_norm.forward(&x)?;
            let q = layer.wq.forward(&h)?;
            let k = layer.wk.forward(&h)?;
            let v = layer.wv.forward(&h)?;
            let q = q
                .reshape((1, seq, self.n_head, self.head_dim))?
                .transpose(1, 2)?;
            let k = k
                .reshape((1, seq, self.n_kv_head, self.head_dim))?
                .transpose(1, 2)?;
            let v = v
                .reshape((1, seq, self.n_kv_head, self.head_dim))?
                .transpose(1, 2)?
                .contiguous()?;
            let q = layer.q_norm.forward(&q.contiguous()?)?;
            let k = layer.k_norm.forward(&k.contiguous()?)?;
            let rope = if layer.window.is_some() {
                &self.rope_local
            } else {
                &self.rope_global
            };
            let q = rope.apply(&q, pos, false)?;
            let k = rope.apply(&k, pos, false)?;
            let (k, v, kv_start) = layer.cache.append(k, v, layer.window)?;
            let mask = causal_mask(pos, seq, kv_start, k.dim(2)?, layer.window, &device)?;
            let y = attend(&q, k, v, mask.as_ref(), scale)?;
            let y = layer.post_attn_norm.forward(&layer.wo.forward(&y)?)?;
            let x1 = (y + residual)?;
            let h = layer.ffn_norm.forward(&x1)?;
            // GELU (tanh approximation), as Gemma's config and llama.cpp have it; upstream
            // candle's quantized Gemma 3 uses SiLU here.
            let gate = layer.w_gate.forward(&h)?.gelu()?;
            let up = layer.w_up.forward(&h)?;
            let y = layer
                .post_ffn_norm
                .forward(&layer.w_down.forward(&(gate * up)?)?)?;
            x = (y + x1)?;
        }
        let x = x.i((.., seq - 1, ..))?;
        let x = self.norm.forward(&x)?;
        self.output.forward(&x)
    }

    pub(crate) fn clear(&mut self) {
        for l in self.layers.iter_mut() {
            l.cache.clear();
        }
    }

    /// Cuts every layer's cache to positions `..end`; on `false` some layer could not be cut
    /// and the caller clears them all.
    pub(crate) fn truncate(&mut self, end: usize) -> bool {
        let all_can = self
            .layers
            .iter()
            .all(|l| l.cache.can_truncate(end, l.window));
        all_can
            && self
                .layers
                .iter_mut()
                .all(|l| l.cache.truncate(end, l.window))
    }
}
