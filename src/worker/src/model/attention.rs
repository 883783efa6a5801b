//! Pieces both model files share: RoPE tables built once per model at the context the user
//! set, a growing KV cache that can keep only a sliding window, and causal masks.
//!
//! Why not upstream's: candle's quantized Gemma 3 builds sin/cos tables for 131,072
//! positions in every layer (3.9 GB of wasm's 4 GiB), and its Llama caps positions at 4,096.
//! Here the tables are sized to the context cap and shared (a `Tensor` clone is a reference).

use candle_core::{DType, Device, Result, Tensor, D};

/// Sine and cosine of every position up to the context cap, for one frequency base.
#[derive(Debug, Clone)]
pub(crate) struct RopeTables {
    pub(crate) cos: Tensor,
    pub(crate) sin: Tensor,
}

impl RopeTables {
    /// `dim` is the number of rotated dimensions per head; `positions` the context cap.
    pub(crate) fn new(
        dim: usize,
        freq_base: f32,
        positions: usize,
        device: &Device,
    ) -> Result<Self> {
        let theta: Vec<f32> = (0..dim)
            .step_by(2)
            .map(|i| 1f32 / freq_base.powf(i as f32 / dim as f32))
            .collect();
        let theta = Tensor::new(theta.as_slice(), device)?;
        let idx_theta = Tensor::arange(0, positions as u32, device)?
            .to_dtype(DType::F32)?
            .reshape((positions, 1))?
            .matmul(&theta.reshape((1, theta.elem_count()))?)?;
        Ok(Self {
            cos: idx_theta.cos()?,
            sin: idx_theta.sin()?,
        })
    }

    /// Rotates `x` (batch, heads, seq, head_dim) placed at positions `start..start + seq`.
    /// `interleaved` pairs (2i, 2i+1) as Llama does; otherwise (i, i + d/2) as NeoX/Gemma.
    pub(crate) fn apply(&self, x: &Tensor, start: usize, interleaved: bool) -> Result<Tensor> {
        let (_b, _h, seq_len, _d) = x.dims4()?;
        let cos = self.cos.narrow(0, start, seq_len)?;
        let sin = self.sin.narrow(0, start, seq_len)?;
        let x = x.contiguous()?;
        if interleaved {
            candle_nn::rotary_emb::rope_i(&x, &cos, &sin)
        } else {
            candle_nn::rotary_emb::rope(&x, &cos, &sin)
        }
    }
}

/// Keys and values seen so far in one layer. With a window, only the last `window` positions
/// are kept (the earliest query of the next step never looks further back).
#[derive(Debug, Clone, Default)]
pub(crate) struct KvCache {
    kv: Option<(Tensor, Tensor)>,
    /// Absolute position of the first cached entry.
    start: usize,
}

impl KvCache {
    /// Appends this step's keys/values (batch, kv_heads, seq, head_dim) and returns all the
    /// keys/values the step attends to, with the absolute position of the first one.
    pub(crate) fn append(
        &mut self,
        k: Tensor,
        v: Tensor,
        window: Option<usize>,
    ) -> Result<(Tensor, Tensor, usize)> {
        let (k, v) = match self.kv.take() {
            None => (k, v),
            Some((kc, vc)) => (Tensor::cat(&[&kc, &k], 2)?, Tensor::cat(&[&vc, &v], 2)?),
        };
        let start = self.start;
        let len = k.dim(2)?;
        // Keep what the next step may need; return everything this step needs.
        match window {
            Some(w) if len > w => {
                let drop = len - w;
                let kk = k.narrow(2, drop, w)?.contiguous()?;
                let vv = v.narrow(2, drop, w)?.contiguous()?;
                self.kv = Some((kk, vv));
                self.start = start + drop;
            }
            _ => self.kv = Some((k.clone(), v.clone())),
        }
        Ok((k, v, start))
    }

    pub(crate) fn clear(&mut self) {
        self.kv = None;
        self.start = 0;
    }
}

/// An additive mask (0 visible, -inf hidden) of shape (q_len, kv_len) for queries at
/// `q_start..` over keys at `kv_start..`, or `None` when every key is visible (the usual
/// one-token decode step). A key at j is visible to a query at i when j ≤ i and, with a
/// sliding window, i − j < window (llama.cpp's rule).
pub(crate) fn causal_mask(
    q_start: usize,
    q_len: usize,
    kv_start: usize,
    kv_len: usize,
    window: Option<usize>,
    device: &Device,
) -> Result<Option<Tensor>> {
    let visible = |i: usize, j: usize| j <= i && window.is_none_or(|w| i - j < w);
    let mut all = true;
    let mut mask = Vec::with_capacity(q_len * kv_len);
    for qi in 0..q_len {
        let i = q_start + qi;
        for kj in 0..kv_len {
            let ok = visible(i, kv_start + kj);
            all &= ok;
            mask.push(if ok { 0f32 } else { f32::NEG_INFINITY });
        }
    }
    if all {
        return Ok(None);
    }
    Tensor::from_vec(mask, (q_len, kv_len), device).map(Some)
}

/// Scaled dot-product attention with grouped KV heads: q (b, heads, q_len, d), k/v
/// (b, kv_heads, kv_len, d). Returns (b, q_len, heads * d).
pub(crate) fn attend(
    q: &Tensor,
    k: Tensor,
    v: Tensor,
    mask: Option<&Tensor>,
    scale: f64,
) -> Result<Tensor> {
    let (b, n_head, q_len, d) = q.dims4()?;
    let n_kv = k.dim(1)?;
    let k = candle_transformers::utils::repeat_kv(k, n_head / n_kv)?;
    let v = candle_transformers::utils::repeat_kv(v, n_head / n_kv)?;
    let att = (q.matmul(&k.t()?)? * scale)?;
    let att = match mask {
        Some(m) => att.broadcast_add(m)?,
        None => att,
    };
    let att = candle_nn::ops::softmax_last_dim(&att)?;
    let y = att.matmul(&v.contiguous()?)?;
    y.transpose(1, 2)?.reshape((b, q_len, n_head * d))
}

/// The logits of the last position as a flat vector.
pub(crate) fn last_logits(logits: &Tensor) -> Result<Tensor> {
    logits
        .squeeze(0)?
        .to_dtype(DType::F32)?
        .flatten_to(D::Minus1)
}

/// A matmul weight in a form candle has SIMD kernels for in wasm (simd128 covers Q4_0,
/// Q8_0 and the k-quants). Q4_1, Q5_0 and Q5_1 only have scalar kernels there, so they are
/// re-quantized to Q8_0 at load: 1.7× the memory of Q4_1 for roughly twice the decode speed.
/// Q8_0 keeps 8 bits per weight, more than the source had, so the values barely move (the
/// fixture tests still match llama.cpp's greedy tokens).
pub(crate) fn simd_friendly(
    qt: candle_core::quantized::QTensor,
) -> Result<candle_core::quantized::QTensor> {
    use candle_core::quantized::{GgmlDType, QTensor};
    match qt.dtype() {
        GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q5_1 => {
            let cols = qt.shape().dims().last().copied().unwrap_or(0);
            if cols % GgmlDType::Q8_0.block_size() != 0 {
                return Ok(qt);
            }
            let f = qt.dequantize(&Device::Cpu)?;
            QTensor::quantize(&f, GgmlDType::Q8_0)
        }
        _ => Ok(qt),
    }
}
