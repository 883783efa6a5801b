//! Llama-architecture models (SmolLM2 and kin) from a quantized GGUF file.
//!
//! Derived from candle-transformers 0.11.1 `models/quantized_llama.rs`
//! (https://github.com/huggingface/candle, Copyright the candle authors, MIT OR Apache-2.0).
//! Changed for the browser: RoPE tables sized to the context the user set (upstream fixes
//! 4,096 positions), the token embedding kept quantized and looked up row by row (upstream
//! dequantizes the whole table to f32: 113 MB for SmolLM2-135M) and shared with the tied
//! output projection, chunk-safe causal masks, no mixture-of-experts.

use super::attention::{attend, causal_mask, KvCache, RopeTables};
use super::linear::Linear;
use candle_core::quantized::gguf_file;
use candle_core::{Device, IndexOp, Module, Result, Tensor};
use candle_transformers::quantized_nn::RmsNorm;
use std::io::{Read, Seek};

struct Layer {
    wq: Linear,
    wk: Linear,
    wv: Linear,
    wo: Linear,
    attn_norm: RmsNorm,
    w_gate: Linear,
    w_up: Linear,
    w_down: Linear,
    ffn_norm: RmsNorm,
    cache: KvCache,
}

pub(crate) struct Llama {
    embeddings: Linear,
    layers: Vec<Layer>,
    norm: RmsNorm,
    output: Linear,
    rope: RopeTables,
    n_head: usize,
    n_kv_head: usize,
    head_dim: usize,
    interleaved: bool,
}

impl Llama {
    pub(crate) fn load<R: Read + Seek>(
        ct: &gguf_file::Content,
        reader: &mut R,
        context: usize,
        device: &Device,
    ) -> Result<Self> {
        let arch = match ct.metadata.get("general.architecture") {
            Some(v) => v.to_string()?.clone(),
            None => "llama".to_string(),
        };
        let md = |key: &str| match ct.metadata.get(&format!("{arch}.{key}")) {
            Some(v) => Ok(v),
            None => candle_core::bail!("the model file has no {arch}.{key}"),
        };
        let n_head = md("attention.head_count")?.to_u32()? as usize;
        let n_kv_head = md("attention.head_count_kv")?.to_u32()? as usize;
        let blocks = md("block_count")?.to_u32()? as usize;
        let embedding = md("embedding_length")?.to_u32()? as usize;
        let head_dim = embedding / n_head;
        let rope_dim = md("rope.dimension_count")
            .and_then(|v| v.to_u32())
            .map(|v| v as usize)
            .unwrap_or(head_dim);
        let eps = md("attention.layer_norm_rms_epsilon")?.to_f32()? as f64;
        let freq_base = md("rope.freq_base")
            .and_then(|v| v.to_f32())
            .unwrap_or(10_000.);
        // llama.cpp's rope type: Llama and Mistral pair dimensions (2i, 2i+1); Qwen2 and
        // friends pair (i, i + d/2).
        let interleaved = !matches!(arch.as_str(), "qwen2" | "qwen3" | "phi3" | "stablelm");

        let embeddings = Linear::new(ct.tensor(reader, "token_embd.weight", device)?)?;
        let norm = RmsNorm::from_qtensor(ct.tensor(reader, "output_norm.weight", device)?, eps)?;
        let output = if ct.tensor_infos.contains_key("output.weight") {
            Linear::new(ct.tensor(reader, "output.weight", device)?)?
        } else {
            // Tied weights: one copy of the table serves lookup and projection.
            embeddings.clone()
        };
        let mut layers = Vec::with_capacity(blocks);
        for i in 0..blocks {
            let mut t = |name: &str| ct.tensor(reader, &format!("blk.{i}.{name}.weight"), device);
            layers.push(Layer {
                wq: Linear::new(t("attn_q")?)?,
                wk: Linear::new(t("attn_k")?)?,
                wv: Linear::new(t("attn_v")?)?,
                wo: Linear::new(t("attn_output")?)?,
                attn_norm: RmsNorm::from_qtensor(t("attn_norm")?, eps)?,
                w_gate: Linear::new(t("ffn_gate")?)?,
                w_up: Linear::new(t("ffn_up")?)?,
                w_down: Linear::new(t("ffn_down")?)?,
                ffn_norm: RmsNorm::from_qtensor(t("ffn_norm")?, eps)?,
                cache: KvCache::default(),
            });
        }
        Ok(Self {
            embeddings,
            layers,
            norm,
            output,
            rope: RopeTables::new(rope_dim, freq_base, context, device)?,
            n_head,
            n_kv_head,
            head_dim,
            interleaved,
        })
    }

    /// Runs `tokens` placed at `pos..` and returns the logits of the last one.
    pub(crate) fn forward(&mut self, tokens: &[u32], pos: usize) -> Result<Tensor> {
        let device = Device::Cpu;
        let seq = tokens.len();
        let ids = Tensor::new(tokens, &device)?.unsqueeze(0)?;
        let mut x = self.embeddings.embedding(&ids)?;
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
            let q = self.rope.apply(&q, pos, self.interleaved)?;
            let k = self.rope.apply(&k, pos, self.interleaved)?;
            let (k, v, kv_start) = layer.cache.append(k, v, None)?;
            let mask = causal_mask(pos, seq, kv_start, k.dim(2)?, None, &device)?;
            let y = attend(&q, k, v, mask.as_ref(), scale)?;
            let x1 = (layer.wo.forward(&y)? + residual)?;
            let h = layer.ffn_norm.forward(&x1)?;
            let gate = candle_nn::ops::silu(&layer.w_gate.forward(&h)?)?;
            let up = layer.w_up.forward(&h)?;
            x = (layer.w_down.forward(&(gate * up)?)? + x1)?;
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
        let all_can = self.layers.iter().all(|l| l.cache.can_truncate(end, None));
        all_can && self.layers.iter_mut().all(|l| l.cache.truncate(end, None))
    }
}
